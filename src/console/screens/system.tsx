// GET /console/system (README "Console"): the version, the parts of /health, whether metrics are
// served, and the jobs' schedules.
import type { Hono } from "hono";
import packageJson from "../../../package.json" with { type: "json" };
import type { AppBindings } from "../../http/types";
import { page } from "../kit/layout";
import { TableScroll } from "../kit/table";

export function mountSystem(router: Hono<AppBindings>): void {
  router.get("/system", async (c) => {
    const { config, shop } = c.get("deps");
    const health = await c.get("runtime").health.current();
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
        <TableScroll label="Scheduled jobs of this instance">
          <table>
            <caption>Scheduled jobs of this instance</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Schedule</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <td>Session, throttle and audit cleanup</td>
                <td>
                  <code>{config.sessionCleanupCron}</code>
                </td>
              </tr>
              <tr>
                <td>Blob cleanup</td>
                <td>
                  <code>{config.blobCleanupCron}</code>
                </td>
              </tr>
              <tr>
                <td>Shop sync</td>
                <td>{shop ? <code>{config.shopSyncCron}</code> : "off"}</td>
              </tr>
            </tbody>
          </table>
        </TableScroll>
      </>,
    );
  });
}
