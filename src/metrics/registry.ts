// The Prometheus registry of the process (README, Metrics): request counts and durations by route
// template, the bookdist_* domain counters, database pool gauges, event-loop lag and process
// metrics. One registry per process, as the counters are: the app, its services and (at merge)
// the shop code increment them through the functions below, whether a listener serves them or not.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export const registry = new Registry();

// Process (CPU, memory, file descriptors) and event-loop lag, sampled every 10 ms: prom-client's
// own collectors, which run on Bun.
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
// Three gauges of Node's handle counts are named like counters (`_total`), which Prometheus'
// own linter (promtool check metrics) refuses; they say little about this service anyway.
for (const name of [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
])
  registry.removeSingleMetric(name);

const requestLabels = ["method", "route", "status"] as const;

const httpRequestDuration = new Histogram({
  name: "http_request_duration_seconds",
  help: "Time from a request's arrival to its last body byte, by method, route template and status.",
  labelNames: requestLabels,
  // From a cached /health to a large download over a slow phone.
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
  registers: [registry],
});

// The requests' count is the duration histogram's, read from it at each scrape: one prom-client
// call per request instead of two (its label checks and hashing cost ~1 µs a call on the load
// bench's requests, bench/README.md "A leaner request"), and the two can never disagree.
new Counter({
  name: "http_requests_total",
  help: "Requests answered, by method, route template (unmatched paths share one label) and status.",
  labelNames: requestLabels,
  registers: [registry],
  async collect() {
    const counts = (await httpRequestDuration.get()).values.filter(
      (value) => value.metricName === "http_request_duration_seconds_count",
    );
    this.reset();
    for (const { labels, value } of counts) this.inc(labels, value);
  },
});

/**
 * Counts one answered request. The label children are kept by their label text: prom-client
 * would otherwise hash the label object on every request. The set is bounded as the labels are
 * (route templates, methods, statuses).
 */
export function observeRequest(method: string, route: string, status: number, seconds: number): void {
  const key = `${method} ${status} ${route}`;
  let duration = requestDurations.get(key);
  if (duration === undefined) {
    duration = httpRequestDuration.labels({ method, route, status: String(status) });
    requestDurations.set(key, duration);
  }
  duration.observe(seconds);
}

const requestDurations = new Map<string, ReturnType<typeof httpRequestDuration.labels>>();

const logins = new Counter({
  name: "bookdist_logins_total",
  help: "Logins with a password (POST /authentication/login, and HTTP Basic checks), by result: success, failure or throttled.",
  labelNames: ["result"] as const,
  registers: [registry],
});

const registrations = new Counter({
  name: "bookdist_registrations_total",
  help: "Registrations, by result: success, failure or throttled.",
  labelNames: ["result"] as const,
  registers: [registry],
});

const redemptions = new Counter({
  name: "bookdist_redemptions_total",
  help: "Redemptions of activation QR codes, by result: success, failure or throttled.",
  labelNames: ["result"] as const,
  registers: [registry],
});

const downloadBytes = new Counter({
  name: "bookdist_download_bytes_total",
  help: "Bytes of files (archives, APKs, covers) sent to clients; a local download cut off by its client adds none.",
  registers: [registry],
});

const throttled = new Counter({
  name: "bookdist_throttled_requests_total",
  help: "Requests refused with 429 by a throttle, by operationId.",
  labelNames: ["operation"] as const,
  registers: [registry],
});

const shopGrants = new Counter({
  name: "bookdist_shop_grants_total",
  help: "Books granted to readers by shop orders.",
  registers: [registry],
});

const shopRevocations = new Counter({
  name: "bookdist_shop_revocations_total",
  help: "Books a shop order's refund or cancellation took back.",
  registers: [registry],
});

export type Outcome = "success" | "failure" | "throttled";

export function countLogin(result: Outcome): void {
  logins.inc({ result });
}
export function countRegistration(result: Outcome): void {
  registrations.inc({ result });
}
export function countRedemption(result: Outcome): void {
  redemptions.inc({ result });
}
export function countDownloadBytes(bytes: number): void {
  if (bytes > 0) downloadBytes.inc(bytes);
}
export function countThrottled(operation: string): void {
  throttled.inc({ operation });
}
export function countShopGrant(count = 1): void {
  shopGrants.inc(count);
}
export function countShopRevocation(count = 1): void {
  shopRevocations.inc(count);
}

/** What the pool gauges read at each scrape (index.ts passes the open database's). */
export interface PoolReadings {
  /** Connections this instance may open (DATABASE_POOL_MAX on Postgres; SQLite's writer and reader: 2). */
  maxConnections(): number;
  /** Streamed lists holding a connection (a snapshot) now, and how many may at once. */
  listSnapshotsOpen(): number;
  listSnapshotSlots(): number;
}

let pool: PoolReadings | undefined;

/** Reads the gauges from `readings` from now on (the server's database). */
export function watchPool(readings: PoolReadings): void {
  pool = readings;
}

new Gauge({
  name: "bookdist_db_pool_max_connections",
  help: "Database connections this instance may open.",
  registers: [registry],
  collect() {
    if (pool) this.set(pool.maxConnections());
  },
});
new Gauge({
  name: "bookdist_db_list_snapshots_open",
  help: "Streamed lists holding a database connection (their snapshot) now.",
  registers: [registry],
  collect() {
    if (pool) this.set(pool.listSnapshotsOpen());
  },
});
new Gauge({
  name: "bookdist_db_list_snapshot_slots",
  help: "Streamed lists that may hold a database connection at once (a quarter of the pool).",
  registers: [registry],
  collect() {
    if (pool) this.set(pool.listSnapshotSlots());
  },
});
