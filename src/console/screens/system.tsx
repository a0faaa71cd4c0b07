// GET /console/system (README "Console"): the version, the parts of /health, whether metrics are
// served, and the jobs' schedules with their last runs on this instance (services/job-runs.ts: kept
// in memory by the scheduler) — and, for the shop sync, its last run on any instance (the shared
// shop_sync_state row).
import type { Hono } from "hono";
import packageJson from "../../../package.json" with { type: "json" };
import type { Config } from "../../config";
import type { AppBindings } from "../../http/types";
import { type JobRecord, jobBoardOf, nextRunOf } from "../../services/job-runs";
import { shopStatus } from "../../services/shop-status";
import { page } from "../kit/layout";
import { when } from "./shared";

interface JobLine {
  name: string;
  label: string;
  /** A cron pattern; "at start": once when the process starts; null: off. */
  schedule: string | null;
}

/** Every job of jobs/scheduler.ts, as the configuration sets it up. */
function jobsOf(config: Config, shopOn: boolean): JobLine[] {
  return [
    {
      name: "session-cleanup",
      label: "Session, throttle and audit cleanup",
      schedule: config.sessionCleanupCron,
    },
    { name: "blob-cleanup", label: "Blob cleanup", schedule: config.blobCleanupCron },
    { name: "shop-sync", label: "Shop sync", schedule: shopOn ? config.shopSyncCron : null },
    { name: "archive-format-backfill", label: "Archive format backfill", schedule: "at start" },
    { name: "partial-md5-backfill", label: "KOReader document id backfill", schedule: "at start" },
  ];
}

function LastRun(props: { record: JobRecord | undefined }) {
  const { record } = props;
  if (!record) return <td colspan={3}>not scheduled on this instance</td>;
  const run = record.current;
  if (!run) return <td colspan={3}>not run yet on this instance</td>;
  const ended = record.lastEnded;
  return (
    <>
      <td>{when(run.startedAt)}</td>
      <td>
        {run.finishedAt
          ? when(run.finishedAt)
          : ended
            ? `running (the one before ended ${when(ended.finishedAt)})`
            : "running"}
      </td>
      <td class={ended?.outcome === "failed" ? "status-bad" : undefined}>
        {ended ? `${ended.outcome}${ended.summary ? `: ${ended.summary}` : ""}` : "—"}
      </td>
    </>
  );
}

import { TableScroll } from "../kit/table";

export function mountSystem(router: Hono<AppBindings>): void {
  router.get("/system", async (c) => {
    const deps = c.get("deps");
    const { config, shop } = deps;
    const [health, shopState] = await Promise.all([c.get("runtime").health.current(), shopStatus(deps)]);
    const board = jobBoardOf(deps);
    const now = deps.clock.now();
    const dialect = c.get("deps").db.dialect;
    return page(
      c,
      { title: "System", section: "system" },
      <>
        <h2>Service</h2>
        <dl class="facts">
          <dt>Version</dt>
          <dd>{packageJson.version}</dd>
          <dt>Database</dt>
          <dd>{dialect === "postgres" ? "Postgres" : "SQLite"}</dd>
          <dt>Storage</dt>
          <dd>
            {config.storage.driver === "s3"
              ? `S3 bucket ${config.storage.bucket}`
              : "local disk (DATA_DIR/blobs)"}
          </dd>
          <dt>User store</dt>
          <dd>{config.storeDriver === "wordpress" ? "WordPress shop" : "embedded"}</dd>
          <dt>Shop orders</dt>
          <dd>{shop ? "on" : "off"}</dd>
          <dt>Metrics</dt>
          <dd>
            {config.metricsPort
              ? `on, ${config.metricsHost}:${config.metricsPort}`
              : "off (METRICS_PORT unset)"}
          </dd>
        </dl>
        <h2>Health</h2>
        <dl class="facts">
          {(["database", "store", "storage"] as const).map((part) => (
            <>
              <dt>{part}</dt>
              <dd class={health[part] === "ok" ? "status-ok" : "status-bad"}>{health[part]}</dd>
            </>
          ))}
        </dl>
        <h2>Jobs</h2>
        <p>
          Last runs are those of this instance since it started (kept in its memory); each instance runs its
          own jobs. The shop sync's last run on any instance:{" "}
          {shopState.lastSyncAt ? when(new Date(shopState.lastSyncAt)) : "never"}.
        </p>
        <TableScroll label="Scheduled jobs and their last runs on this instance">
          <table>
            <caption>Scheduled jobs and their last runs on this instance</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Schedule (UTC)</th>
                <th scope="col">Next run</th>
                <th scope="col">Last started</th>
                <th scope="col">Last ended</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {jobsOf(config, shop !== undefined).map((job) => (
                <tr>
                  <td>{job.label}</td>
                  <td>
                    {job.schedule === null ? (
                      "off"
                    ) : job.schedule === "at start" ? (
                      "once at start"
                    ) : (
                      <code>{job.schedule}</code>
                    )}
                  </td>
                  <td>
                    {job.schedule === null || job.schedule === "at start"
                      ? "—"
                      : when(nextRunOf(job.schedule, now))}
                  </td>
                  {job.schedule === null ? <td colspan={3}>—</td> : <LastRun record={board.get(job.name)} />}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      </>,
    );
  });
}
