// Counts, first pages and the last page on a large database, before and after migration 0004
// (sort indexes, row counters) and the reverse read of deep pages: in-process, no server.
//
//   bun bench/counts.ts                                   SQLite in a temp folder
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/counts.ts
//   BENCH_ACTIVATIONS=5000000 …                           the size (default 1,000,000 activations)
//
// It migrates a fresh database up to 0003, fills it by INSERT … SELECT (books, versions, two QR
// codes per activation, one book with 200,000 codes), times the statements the code before 0004
// ran (count(*), ORDER BY field, id ASC … OFFSET), applies 0004 (timed: it builds the indexes and
// backfills the counters), then times the same reads through the services the handlers call.
// Medians of RUNS runs, in ms. On Postgres it creates its own database and drops it afterwards.
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { migrate as migratePostgres } from "drizzle-orm/bun-sql/migrator";
import { migrate as migrateSqlite } from "drizzle-orm/bun-sqlite/migrator";
import { type DatabaseHandle, openDatabase } from "../src/db/client";
import type { ListWindow } from "../src/lib/list-window";
import * as activations from "../src/services/activations";
import * as bookVersions from "../src/services/book-versions";
import * as books from "../src/services/books";
import * as qrCodes from "../src/services/qr-codes";
import { fmt, median, projectRoot, tempDir } from "./lib";

const RUNS = 15;
const ACTIVATIONS = Number(process.env.BENCH_ACTIVATIONS ?? 1_000_000);
const BOOKS = Math.max(1000, ACTIVATIONS / 50);
const VERSIONS = BOOKS * 3;
const CODES = ACTIVATIONS * 2;
const BIG_BOOK_CODES = 200_000;
const serverUrl = process.env.BENCH_DATABASE_URL;
const dialect = serverUrl ? "postgres" : "sqlite";
const folder = serverUrl ? "pg" : "sqlite";
const dir = tempDir("bookdist-counts-");

let handle: DatabaseHandle;
let dropDatabase = async () => {};
if (serverUrl) {
  const name = `wt_counts_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const admin = new SQL(serverUrl);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  handle = await openDatabase(url.toString());
  dropDatabase = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  };
} else {
  handle = await openDatabase(`sqlite:${join(dir, "counts.sqlite")}`);
}
const { db } = handle;
const orm = db.orm as unknown as {
  run(q: unknown): unknown;
  all(q: unknown): unknown[];
  execute(q: unknown): Promise<unknown[]>;
};
const { sql } = await import("drizzle-orm");
const run = async (statement: string): Promise<unknown[]> =>
  dialect === "sqlite" ? orm.all(sql.raw(statement)) : await orm.execute(sql.raw(statement));

async function migrateTo(lastIdx: number) {
  const target = join(dir, `migrations-${lastIdx}`);
  cpSync(join(projectRoot, "drizzle", folder), target, { recursive: true });
  const journalPath = join(target, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  journal.entries = journal.entries.filter((entry: { idx: number }) => entry.idx <= lastIdx);
  writeFileSync(journalPath, JSON.stringify(journal));
  if (dialect === "sqlite") migrateSqlite(db.orm as never, { migrationsFolder: target });
  else await migratePostgres(db.orm as never, { migrationsFolder: target });
}

/** `SELECT … FROM series(n)`: the numbers 1..n as column i. */
const series = (n: number) =>
  dialect === "sqlite"
    ? `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s)`
    : `(SELECT generate_series(1, ${n}) AS i)`;
const time = (ms: string) => (dialect === "sqlite" ? ms : `to_timestamp((${ms}) / 1000.0)`);
const bool = (expr: string) => (dialect === "sqlite" ? `(${expr})` : `(${expr})`);
const base = 1_780_000_000_000;

async function seed() {
  const started = performance.now();
  await run(`INSERT INTO book (title, author, created_at, updated_at)
    SELECT 'Title ' || (i % 9973), CASE WHEN i % 7 = 0 THEN NULL ELSE 'Author ' || (i % 311) END,
      ${time(`${base} + (i / 3) * 1000`)}, ${time(`${base} + (i % 1000) * 1000`)} FROM ${series(BOOKS)} AS s`);
  await run(`INSERT INTO book_version (book_id, version_code, version_name, created_at, updated_at)
    SELECT (i - 1) / 3 + 1, (i - 1) % 3 + 1, 'v', ${time(`${base} + i * 100`)}, ${time(`${base} + i * 100`)}
    FROM ${series(VERSIONS)} AS s`);
  // Book 1 has BIG_BOOK_CODES codes; the rest go round the other books.
  await run(`INSERT INTO activation_qr_code (book_id, code, enabled, max_activations, activation_count,
      first_redeemed_at, created_at, updated_at)
    SELECT CASE WHEN i <= ${BIG_BOOK_CODES} THEN 1 ELSE 2 + i % (${BOOKS} - 1) END, 'C' || i, ${bool("i % 10 <> 0")}, 1,
      CASE WHEN i % 2 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 2 = 0 THEN ${time(`${base} + i * 10`)} END,
      ${time(`${base} + (i / 500) * 1000`)}, ${time(`${base} + i * 10`)}
    FROM ${series(CODES)} AS s`);
  await run(`INSERT INTO activation (book_id, user_uuid, qr_code_id, created_at, updated_at)
    SELECT 1 + i % ${BOOKS}, 'user-' || (i / ${BOOKS}), NULL, ${time(`${base} + i * 20`)}, ${time(`${base} + i * 20`)}
    FROM ${series(ACTIVATIONS)} AS s`);
  // Postgres's autovacuum would analyze the tables; bookdist never runs ANALYZE on SQLite, whose
  // planner then goes by its heuristics, as it does here.
  if (dialect === "postgres") await run("VACUUM ANALYZE");
  return performance.now() - started;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  await work(); // warm
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await work();
    times.push(performance.now() - start);
  }
  return median(times);
}

const rows: [string, string, string][] = [];
const report = (what: string, before: number | undefined, after: number | undefined) => {
  rows.push([what, before === undefined ? "" : fmt(before, 2), after === undefined ? "" : fmt(after, 2)]);
  console.log(
    `${what.padEnd(64)} ${(before === undefined ? "" : fmt(before, 2)).padStart(10)} ${(after === undefined ? "" : fmt(after, 2)).padStart(10)}`,
  );
};

// The statements the list path ran before: rows and count(*) beside each other.
const beforeRead = (statement: string, count: string) => () =>
  dialect === "sqlite" ? run(statement).then(() => run(count)) : Promise.all([run(statement), run(count)]);

interface Case {
  what: string;
  before?: () => Promise<unknown>;
  after: () => Promise<unknown>;
}

const page0 = (sort: ListWindow<string>["sort"]): ListWindow<never> =>
  ({ sort, limit: 20, offset: 0 }) as never;
const orderSql = (column: string, direction: "asc" | "desc") => `ORDER BY ${column} ${direction}, id ASC`;

function cases(): Case[] {
  const list: Case[] = [];
  const counts: [string, string, () => Promise<unknown>][] = [
    ["GET /book/count", "book", () => books.countBooks(db)],
    ["GET /bookversion/count", "book_version", () => bookVersions.countBookVersions(db)],
    ["GET /activation/count", "activation", () => activations.countActivations(db)],
    ["GET /activation-qr-code/count", "activation_qr_code", () => qrCodes.countQrCodes(db)],
  ];
  for (const [what, table, after] of counts) {
    list.push({ what, before: () => run(`SELECT count(*) FROM ${table}`), after });
  }
  list.push({
    what: "GET /activation-qr-code/ofbook/1/count (200,000 codes)",
    before: () => run("SELECT count(*) FROM activation_qr_code WHERE book_id = 1"),
    after: () => qrCodes.countQrCodes(db, { bookId: 1 }),
  });
  list.push({
    what: "null-activations count of book 1 (100,000 unused)",
    before: () =>
      run("SELECT count(*) FROM activation_qr_code WHERE book_id = 1 AND first_redeemed_at IS NULL"),
    after: () => qrCodes.countQrCodes(db, { bookId: 1, unused: true }),
  });
  const lists: [string, string, string[][], (window: ListWindow<never>) => Promise<unknown>][] = [
    [
      "/book",
      "book",
      [
        ["id", "id"],
        ["title", "title"],
        ["author", "author"],
        ["createdAt", "created_at"],
        ["updatedAt", "updated_at"],
      ],
      (w) => books.listBooks(db, w),
    ],
    [
      "/bookversion",
      "book_version",
      [
        ["id", "id"],
        ["bookId", "book_id"],
        ["versionCode", "version_code"],
        ["createdAt", "created_at"],
      ],
      (w) => bookVersions.listBookVersions(db, w),
    ],
    [
      "/activation",
      "activation",
      [
        ["id", "id"],
        ["bookId", "book_id"],
        ["createdAt", "created_at"],
      ],
      (w) => activations.listActivations(db, w),
    ],
    [
      "/activation-qr-code",
      "activation_qr_code",
      [
        ["id", "id"],
        ["bookId", "book_id"],
        ["createdAt", "created_at"],
        ["enabled", "enabled"],
      ],
      (w) => qrCodes.listQrCodes(db, w),
    ],
  ];
  for (const [path, table, fields, after] of lists) {
    for (const [field, column] of fields) {
      for (const direction of ["asc", "desc"] as const) {
        list.push({
          what: `GET ${path}?sort=${field},${direction}&page=0&size=20`,
          before: beforeRead(
            `SELECT * FROM ${table} ${orderSql(column!, direction)} LIMIT 20 OFFSET 0`,
            `SELECT count(*) FROM ${table}`,
          ),
          after: () => after(page0([{ field: field!, direction }])),
        });
      }
    }
  }
  const lastOffset = Math.floor((ACTIVATIONS - 1) / 20) * 20;
  list.push({
    what: `GET /activation?page=${lastOffset / 20}&size=20 (the last page)`,
    before: beforeRead(
      `SELECT * FROM activation ORDER BY id LIMIT 20 OFFSET ${lastOffset}`,
      "SELECT count(*) FROM activation",
    ),
    after: () => activations.listActivations(db, { sort: [], limit: 20, offset: lastOffset }),
  });
  list.push({
    what: `GET /activation?sort=createdAt,desc&page=${lastOffset / 20}&size=20 (last)`,
    before: beforeRead(
      `SELECT * FROM activation ORDER BY created_at DESC, id ASC LIMIT 20 OFFSET ${lastOffset}`,
      "SELECT count(*) FROM activation",
    ),
    after: () =>
      activations.listActivations(db, {
        sort: [{ field: "createdAt", direction: "desc" }],
        limit: 20,
        offset: lastOffset,
      }),
  });
  const middle = (BIG_BOOK_CODES / 2 / 20) * 20;
  for (const [label, sort, sortSql] of [
    ["", [], "ORDER BY id"],
    ["sort=createdAt,desc&", [{ field: "createdAt", direction: "desc" }], "ORDER BY created_at DESC, id ASC"],
    ["sort=enabled,asc&", [{ field: "enabled", direction: "asc" }], "ORDER BY enabled ASC, id ASC"],
  ] as const) {
    for (const offset of [0, middle]) {
      list.push({
        what: `GET /activation-qr-code/ofbook/1?${label}page=${offset / 20}&size=20`,
        before: beforeRead(
          `SELECT * FROM activation_qr_code WHERE book_id = 1 ${sortSql} LIMIT 20 OFFSET ${offset}`,
          "SELECT count(*) FROM activation_qr_code WHERE book_id = 1",
        ),
        after: () => qrCodes.listQrCodes(db, { sort: [...sort], limit: 20, offset } as never, { bookId: 1 }),
      });
    }
  }
  return list;
}

try {
  await migrateTo(3);
  console.log(
    `${dialect}: seeding ${BOOKS} books, ${VERSIONS} versions, ${ACTIVATIONS} activations, ${CODES} codes…`,
  );
  console.log(`seeded in ${fmt((await seed()) / 1000)} s`);
  const all = cases();
  const before = new Map<string, number>();
  for (const c of all) if (c.before) before.set(c.what, await timed(c.before));
  const migrationStart = performance.now();
  await migrateTo(4);
  console.log(
    `migration 0004 (indexes, counters) took ${fmt((performance.now() - migrationStart) / 1000)} s`,
  );
  if (dialect === "postgres") await run("VACUUM ANALYZE");
  console.log(`${"median ms".padEnd(64)} ${"before".padStart(10)} ${"after".padStart(10)}`);
  for (const c of all) report(c.what, before.get(c.what), await timed(c.after));
} finally {
  await handle.close();
  await dropDatabase();
  rmSync(dir, { recursive: true, force: true });
}
