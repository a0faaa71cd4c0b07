import { Cron } from "croner";
import type { Deps } from "../deps";
import { describeError } from "../lib/logger";
import { jobBoardOf } from "../services/job-runs";
import { backfillArchiveFormats } from "./archive-formats";
import { backfillPartialMd5 } from "./archive-partial-md5";
import { cleanupAuditEvents } from "./audit-cleanup";
import { cleanupBlobs } from "./blob-cleanup";
import { cleanupSessions } from "./session-cleanup";

export interface Scheduler {
  stop(): void;
}

/**
 * Starts the in-process jobs; `protect` keeps a slow run from overlapping the next. Each run's start,
 * end and outcome go to the log and to this instance's job board (services/job-runs.ts, what the
 * console's system screen shows).
 */
export function startJobs(deps: Deps): Scheduler {
  const board = jobBoardOf(deps);
  const tracked = async <T extends object>(name: string, run: () => Promise<T>): Promise<T> => {
    board.started(name, deps.clock.now());
    try {
      const result = await run();
      board.finished(name, deps.clock.now(), result);
      return result;
    } catch (error) {
      board.failed(name, deps.clock.now(), error);
      throw error;
    }
  };
  const schedule = (name: string, pattern: string, run: () => Promise<object>) => {
    board.register(name, pattern);
    return new Cron(pattern, { protect: true, name }, async () => {
      try {
        deps.logger.info("job done", { job: name, ...(await tracked(name, run)) });
      } catch (error) {
        deps.logger.error("job failed", { job: name, ...describeError(error) });
      }
    });
  };
  const jobs = [
    // The cleanup job: ended sessions, closed throttling windows, audit events past AUDIT_RETENTION.
    schedule("session-cleanup", deps.config.sessionCleanupCron, async () => ({
      ...(await cleanupSessions(deps)),
      ...(await cleanupAuditEvents(deps)),
    })),
    schedule("blob-cleanup", deps.config.blobCleanupCron, () => cleanupBlobs(deps)),
  ];
  // Webhooks are a hint: this is what makes a sale reach the reader within a minute without them.
  const { shop } = deps;
  if (shop) jobs.push(schedule("shop-sync", deps.config.shopSyncCron, () => shop.sync()));
  // Once per start, in the background: archives stored before their format was recognised.
  const stopBackfill = new AbortController();
  board.register("archive-format-backfill", "at start");
  board.register("partial-md5-backfill", "at start");
  tracked("archive-format-backfill", () =>
    backfillArchiveFormats(deps, { signal: stopBackfill.signal }),
  ).then(
    (result) => {
      if (result.recognised > 0 || result.failed > 0)
        deps.logger.info("job done", { job: "archive-format-backfill", ...result });
    },
    (error) => deps.logger.error("job failed", { job: "archive-format-backfill", ...describeError(error) }),
  );
  // Once per start, likewise: KOReader's document ids of archives stored before they were kept.
  tracked("partial-md5-backfill", () => backfillPartialMd5(deps, { signal: stopBackfill.signal })).then(
    (result) => {
      if (result.computed > 0 || result.failed > 0)
        deps.logger.info("job done", { job: "partial-md5-backfill", ...result });
    },
    (error) => deps.logger.error("job failed", { job: "partial-md5-backfill", ...describeError(error) }),
  );
  return {
    stop() {
      stopBackfill.abort();
      for (const job of jobs) job.stop();
    },
  };
}
