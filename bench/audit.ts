// The audit log's cost (issue 36), on SQLite or — with BENCH_DATABASE_URL=postgres://… — on a
// fresh database of that Postgres server, in one run:
//   1. the cost per write: a book created by the service with its audit event (createBook: one
//      transaction, the INSERT and the event's INSERT) against the same INSERT in a transaction of
//      its own without the event, in alternating rounds; the ratio is the median of the round ratios;
//   2. page 0 of GET /audit-event (and its filters, its count) with 1,000,000 events, seeded in
//      bulk by the database itself (a recursive CTE on SQLite, generate_series on Postgres),
//      through the app's whole request path (app.request: access check, handler, JSON), median of
//      15 after a warm-up.
// Usage: bun bench/audit.ts [events]   (default 1,000,000)
import { sql } from "drizzle-orm";
import { queuedWrite, withTransaction } from "../src/db/transaction";
import { insertBook } from "../src/repositories/books";
import { apiSource, countAuditEvents } from "../src/services/audit";
import { createBook } from "../src/services/books";
import { createTestApp } from "../test/helpers/test-app";
import { fmt, median } from "./lib";

const EVENTS = Number(process.argv[2] ?? 1_000_000);
if (process.env.BENCH_DATABASE_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_DATABASE_URL;
const t = await createTestApp();
const { db } = t.deps;
const dialect = db.dialect;
const admin = await t.admin();
const by = apiSource(
  { userUuid: admin.uuid, email: admin.email, roles: ["user", "admin"], storeUserId: "1", sessionId: null },
  crypto.randomUUID(),
  "127.0.0.1",
);
const fields = (i: number) => ({
  title: `Bench ${i}`,
  author: "A",
  isbn: null,
  description: null,
  language: null,
});
const now = new Date();

async function run(statement: string): Promise<void> {
  await queuedWrite(db, async (tx) => {
    const orm = tx.orm as unknown as { run(q: unknown): unknown; execute(q: unknown): Promise<unknown> };
    if (dialect === "sqlite") orm.run(sql.raw(statement));
    else await orm.execute(sql.raw(statement));
  });
}

// --- 1. cost per write ---
const ROUNDS = 7;
const PER_ROUND = 400;
const perWrite = { plain: [] as number[], audited: [] as number[] };
let n = 0;
for (let round = 0; round < ROUNDS + 1; round++) {
  let started = performance.now();
  for (let i = 0; i < PER_ROUND; i++) await withTransaction(db, (tx) => insertBook(tx, fields(n++), now));
  const plain = ((performance.now() - started) * 1000) / PER_ROUND;
  started = performance.now();
  for (let i = 0; i < PER_ROUND; i++) await createBook(db, by, fields(n++), now);
  const audited = ((performance.now() - started) * 1000) / PER_ROUND;
  // The first round warms up both paths.
  if (round === 0) continue;
  perWrite.plain.push(plain);
  perWrite.audited.push(audited);
}
const ratios = perWrite.audited.map((audited, i) => audited / perWrite.plain[i]!);
console.log(`audit bench on ${dialect}`);
console.log(
  `cost per write (book create, ${ROUNDS} rounds of ${PER_ROUND}): without the event ${fmt(median(perWrite.plain))} µs, with it ${fmt(median(perWrite.audited))} µs, ratio ${fmt(median(ratios), 2)}`,
);

// --- 2. page 0 with EVENTS events ---
const seedStarted = performance.now();
await run("DELETE FROM audit_event");
const base = Date.parse("2026-01-01T00:00:00.000Z");
const columns =
  "at, actor_uuid, actor_email, actor_via, action, target_type, target_id, changes, request_id, client";
const action = (i: string) =>
  `CASE ${i} % 5 WHEN 0 THEN 'book.update' WHEN 1 THEN 'book.create' WHEN 2 THEN 'activation.create' WHEN 3 THEN 'qrcode.disable' ELSE 'apk.upload' END`;
const changes = `'{"title":["Before","After"],"author":[null,"Someone"]}'`;
if (dialect === "sqlite") {
  await run(`INSERT INTO audit_event (${columns})
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${EVENTS})
    SELECT ${base} + i * 1000, '00000000-0000-4000-8000-' || printf('%012d', i % 50), 'admin' || (i % 50) || '@example.com',
      'api', ${action("i")}, 'book', CAST(i % 100000 AS TEXT), ${changes}, 'req-' || i, '127.0.0.1' FROM n`);
} else {
  await run(`INSERT INTO audit_event (${columns})
    SELECT TIMESTAMPTZ '2026-01-01T00:00:00Z' + i * INTERVAL '1 second', '00000000-0000-4000-8000-' || lpad((i % 50)::text, 12, '0'),
      'admin' || (i % 50) || '@example.com', 'api', ${action("i")}, 'book', (i % 100000)::text, ${changes}, 'req-' || i, '127.0.0.1'
    FROM generate_series(1, ${EVENTS}) AS i`);
  await run("ANALYZE audit_event");
}
console.log(
  `seeded ${await countAuditEvents(db)} events in ${fmt((performance.now() - seedStarted) / 1000)} s`,
);

const requests: [string, string][] = [
  ["page 0 (newest first)", "/audit-event?page=0&size=20"],
  ["page 0, sort=at,desc", "/audit-event?page=0&size=20&sort=at,desc"],
  ["page 0, sort=id,asc", "/audit-event?page=0&size=20&sort=id,asc"],
  ["page 0, action=book.update", "/audit-event?page=0&size=20&action=book.update"],
  ["page 0, action=book.*", "/audit-event?page=0&size=20&action=book.*"],
  ["page 0, actor=<e-mail>", "/audit-event?page=0&size=20&actor=admin7@example.com"],
  ["page 0, targetType+targetId", "/audit-event?page=0&size=20&targetType=book&targetId=4242"],
  [
    "page 0, from/to (a day)",
    "/audit-event?page=0&size=20&from=2026-01-05T00:00:00Z&to=2026-01-06T00:00:00Z",
  ],
  ["count", "/audit-event/count"],
  ["count, action=book.update", "/audit-event/count?action=book.update"],
];
console.log("| request | median ms (15) | target |");
console.log("|---|---|---|");
for (const [name, path] of requests) {
  const times: number[] = [];
  for (let i = 0; i < 18; i++) {
    const started = performance.now();
    const response = await t.call("GET", path, { token: admin.token });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    if (i >= 3) times.push(performance.now() - started);
  }
  const ms = median(times);
  const target = name.startsWith("page 0 (newest") ? (ms <= 20 ? "≤ 20 ms: met" : "≤ 20 ms: MISSED") : "";
  console.log(`| ${name} | ${fmt(ms, 2)} | ${target} |`);
}

// The run-wide audit of the tests reads every event before a test database is dropped: not these.
await run("DELETE FROM audit_event");
await t.close();
