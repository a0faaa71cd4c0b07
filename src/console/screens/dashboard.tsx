// GET /console: the dashboard (README "Console"). Every figure is a counter or rollup read
// (services/dashboard.ts), the charts cover the last 30 or 90 days (`?days=90`).
import type { Hono } from "hono";
import type { AppBindings } from "../../http/types";
import { getActiveApks } from "../../services/apks";
import { ACTIVE_DAYS, dashboardFigures } from "../../services/dashboard";
import { shopStatus } from "../../services/shop-status";
import { BarChart } from "../kit/chart";
import { page } from "../kit/layout";

const PERIODS = [30, 90] as const;

function Card(props: { label: string; value: number | string; href?: string }) {
  return (
    <li class="card">
      <span class="value">
        {typeof props.value === "number" ? props.value.toLocaleString("en") : props.value}
      </span>
      <span class="label">{props.href ? <a href={props.href}>{props.label}</a> : props.label}</span>
    </li>
  );
}

export function mountDashboard(router: Hono<AppBindings>): void {
  router.get("/", async (c) => {
    const deps = c.get("deps");
    const days = c.req.query("days") === "90" ? 90 : 30;
    const now = deps.clock.now();
    const [figures, active, shop, health] = await Promise.all([
      dashboardFigures(deps.db, now, days),
      getActiveApks(deps.db),
      shopStatus(deps),
      c.get("runtime").health.current(),
    ]);
    const { series } = figures;
    return page(
      c,
      { title: "Dashboard", section: "dashboard" },
      <>
        <h2>In numbers</h2>
        <ul class="cards">
          <Card label="Books" value={figures.books} href="/console/books" />
          <Card label="Codes printed" value={figures.codesPrinted} href="/console/print-runs" />
          <Card label="Codes redeemed" value={figures.codesRedeemed} />
          <Card label="Activations" value={figures.activations} href="/console/activations" />
          <Card label="… by code" value={figures.activationsBySource.code} />
          <Card label="… by shop order" value={figures.activationsBySource.order} />
          <Card label="… by hand" value={figures.activationsBySource.manual} />
          <Card
            label={`Active readers (${ACTIVE_DAYS} days)`}
            value={figures.activeReaders}
            href="#active-readers"
          />
        </ul>
        <p id="active-readers" class="hint">
          Active readers: the accounts that signed in to an app, used a signed-in app, or made or used a
          device token in the last {ACTIVE_DAYS} days (UTC, today included), each counted once.
        </p>
        <h2>The last {days} days</h2>
        <p>
          Show:{" "}
          {PERIODS.map((period, i) => (
            <>
              {i > 0 && " · "}
              {period === days ? (
                <strong aria-current="true">{`${period} days`}</strong>
              ) : (
                <a href={`/console?days=${period}`}>{`${period} days`}</a>
              )}
            </>
          ))}
        </p>
        <BarChart
          id="chart-activations"
          title="Activations per day by source"
          days={series.days}
          series={[
            { label: "By code", values: series.activations.code },
            { label: "By shop order", values: series.activations.order },
            { label: "By hand", values: series.activations.manual },
          ]}
        />
        <BarChart
          id="chart-downloads"
          title="Downloads per day (archives and APKs)"
          days={series.days}
          series={[{ label: "Downloads", values: series.downloads }]}
        />
        <div class="layout-split">
          <section aria-labelledby="active-apks">
            <h2 id="active-apks">Active APKs</h2>
            <dl class="facts">
              {(["bookapp", "launcher"] as const).map((kind) => {
                const apk = active[kind];
                return (
                  <>
                    <dt>{kind}</dt>
                    <dd>{apk ? `${apk.versionName} (versionCode ${apk.versionCode})` : "none active"}</dd>
                  </>
                );
              })}
            </dl>
            <p>
              <a href="/console/apks">Manage APKs</a>
            </p>
          </section>
          <section aria-labelledby="shop-status">
            <h2 id="shop-status">Shop</h2>
            {shop.enabled ? (
              <dl class="facts">
                <dt>Last sync</dt>
                <dd>{shop.lastSyncAt ?? "not yet"}</dd>
                <dt>Lag</dt>
                <dd>{shop.lagSeconds === null ? "unknown" : `${shop.lagSeconds} s`}</dd>
                <dt>Webhook</dt>
                <dd>
                  {shop.webhook.configured
                    ? `configured, last delivery ${shop.webhook.lastDeliveryAt ?? "none"}`
                    : "not configured"}
                </dd>
              </dl>
            ) : (
              <p>Shop orders are off (SHOP_ORDERS).</p>
            )}
          </section>
          <section aria-labelledby="health">
            <h2 id="health">Health</h2>
            <dl class="facts">
              {(["database", "store", "storage"] as const).map((part) => (
                <>
                  <dt>{part}</dt>
                  <dd class={health[part] === "ok" ? "status-ok" : "status-bad"}>{health[part]}</dd>
                </>
              ))}
            </dl>
            <p>
              <a href="/console/system">System details</a>
            </p>
          </section>
        </div>
      </>,
    );
  });
}
