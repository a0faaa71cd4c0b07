import { Cron } from "croner";
import type { Deps } from "../deps";
import { describeError } from "../lib/logger";
import { backfillArchiveFormats } from "./archive-formats";
import { backfillPartialMd5 } from "./archive-partial-md5";
import { cleanupAuditEvents } from "./audit-cleanup";
import { cleanupBlobs } from "./blob-cleanup";
import { cleanupSessions } from "./session-cleanup";

export interface Scheduler {
  stop(): void;
}

/** Starts the in-process jobs; `protect` keeps a slow run from overlapping the next. */
export function startJobs(deps: Deps): Scheduler {
  const schedule = (name: string, pattern: string, run: () => Promise<object>) =>
    new Cron(pattern, { protect: true, name }, async () => {
      try {
        deps.logger.info("job done", { job: name, ...(await run()) });
      } catch (error) {
        deps.logger.error("job failed", { job: name, ...describeError(error) });
      }
    });
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
  backfillArchiveFormats(deps, { signal: stopBackfill.signal }).then(
    (result) => {
      if (result.recognised > 0 || result.failed > 0)
        deps.logger.info("job done", { job: "archive-format-backfill", ...result });
    },
    (error) => deps.logger.error("job failed", { job: "archive-format-backfill", ...describeError(error) }),
  );
  // Once per start, likewise: KOReader's document ids of archives stored before they were kept.
  backfillPartialMd5(deps, { signal: stopBackfill.signal }).then(
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
