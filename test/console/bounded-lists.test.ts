// The console's lists whose exact count could read millions of rows (issue 39: every page in
// ≤ 100 ms at a publisher's scale): a user search and a filtered activation list count their
// matches only up to a bound (services/users.ts USER_SEARCH_BOUND, services/activations.ts
// ACTIVATION_COUNT_BOUND) and say "more than N"; a wide user prefix sorts only the first
// USER_SEARCH_BOUND matches. Below the bound the pages are exactly the API's. The statements are
// the services' own, caught by a logger, and the plan the database picks for them must stop at the
// bound (a LIMIT under the count) and read the filter's index, never scan the users or the
// activations whole; a rare user prefix reads the indexes alone. On SQLite or, with TEST_DATABASE_URL, Postgres.
import { Database as Sqlite } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { drizzle as drizzleBunSqlite } from "drizzle-orm/bun-sqlite";
import type { Database } from "#db";
import { sqlitePathFromUrl } from "../../src/db/client";
import * as pgSchema from "../../src/db/schema/pg";
import * as sqliteSchema from "../../src/db/schema/sqlite";
import { fixedClock } from "../../src/lib/clock";
import { ACTIVATION_COUNT_BOUND, listActivations, listActivationsPage } from "../../src/services/activations";
import { searchUsers, searchUsersPage, USER_SEARCH_BOUND } from "../../src/services/users";
import { EmbeddedStore } from "../../src/store/embedded";
import { serializeCapabilities } from "../../src/store/php-serialize";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { signedInAdmin, textOf } from "./helpers";

/** Users: the first WIDE have e-mails and logins starting "wide", the others "other". */
const USERS = 20_000;
const WIDE = 2_500;
/** Activations of book 1 redeemed from a code each, and a few granted by hand. */
const BY_CODE = ACTIVATION_COUNT_BOUND + 50;
const BY_HAND = 30;

interface Statement {
  sql: string;
  params: unknown[];
}

const uuidSql = (dialect: "sqlite" | "postgres", expr: string) =>
  dialect === "sqlite"
    ? `printf('%08x-0000-4000-8000-%012x', ${expr}, ${expr})`
    : `(lpad(to_hex(${expr}), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(${expr}), 12, '0'))`;

describe("console lists with a bounded count: results and the planner's choice", () => {
  let t: TestApp;
  let cookie: string;
  let db: Database;
  let store: EmbeddedStore;
  let caught: Statement[] = [];
  let planOf: (statement: Statement) => Promise<string[]>;
  let close: () => Promise<void> | void;

  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
    const dialect = t.database.dialect;
    const series = (n: number) =>
      dialect === "sqlite"
        ? `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT i FROM s) AS s`
        : `generate_series(1000, ${n} + 999) AS s(i)`;
    // The seeded users' ids start at 1000 (Postgres: past the test app's own users' identity).
    const id = dialect === "sqlite" ? "(i + 999)" : "i";
    const at = dialect === "sqlite" ? String(Date.UTC(2026, 0, 1)) : "now()";
    const name = `CASE WHEN ${id} < ${1000 + WIDE} THEN 'wide' ELSE 'other' END || ${id}`;
    const statements = [
      `INSERT INTO store_user (id, user_login, user_pass, user_nicename, user_email, user_url, user_registered,
         user_activation_key, user_status, display_name)
       SELECT ${id}, ${name}, '!', ${name}, ${name} || '@example.com', '', ${at}, '', 0, 'Reader ' || ${id}
       FROM ${series(USERS)}`,
      `INSERT INTO store_usermeta (user_id, meta_key, meta_value)
       SELECT ${id}, 'wp_capabilities', '${serializeCapabilities(["customer"])}' FROM ${series(USERS)}`,
      `INSERT INTO store_usermeta (user_id, meta_key, meta_value)
       SELECT ${id}, '_bookdist_uuid', ${uuidSql(dialect, id)} FROM ${series(USERS)}`,
      // Every user's first name is "Reader" (a prefix matched by names alone), the last name their
      // login (matched by three ranges at once); one user has the first name "Twice" written
      // USER_SEARCH_BOUND + 1 times, as only a hand in the database could.
      `INSERT INTO store_usermeta (user_id, meta_key, meta_value)
       SELECT ${id}, 'first_name', 'Reader' FROM ${series(USERS)}`,
      `INSERT INTO store_usermeta (user_id, meta_key, meta_value)
       SELECT ${id}, 'last_name', ${name} FROM ${series(USERS)}`,
      `INSERT INTO store_usermeta (user_id, meta_key, meta_value)
       SELECT 1000, 'first_name', 'Twice' FROM ${series(USER_SEARCH_BOUND + 1)}`,
      `INSERT INTO store_user_link (uuid, store_user_id, created_at)
       SELECT ${uuidSql(dialect, id)}, CAST(${id} AS TEXT), ${at} FROM ${series(USERS)}`,
      `INSERT INTO book (id, title, language, created_at, updated_at) VALUES (1, 'Book 1', 'en', ${at}, ${at})`,
      `INSERT INTO activation_qr_code (id, book_id, code, enabled, max_activations, activation_count, label,
         created_at, updated_at)
       SELECT ${id}, 1, 'CODE-' || ${id}, ${dialect === "sqlite" ? "1" : "true"}, 1, 1, 'run', ${at}, ${at}
       FROM ${series(BY_CODE)}`,
      `INSERT INTO activation (id, book_id, user_uuid, qr_code_id, created_at, updated_at)
       SELECT ${id}, 1, ${uuidSql(dialect, id)}, ${id}, ${at}, ${at} FROM ${series(BY_CODE)}`,
      `INSERT INTO activation (id, book_id, user_uuid, created_at, updated_at)
       SELECT ${id} + ${BY_CODE}, 1, 'by-hand-' || ${id}, ${at}, ${at} FROM ${series(BY_HAND)}`,
    ];
    const logger = { logQuery: (sql: string, params: unknown[]) => caught.push({ sql, params }) };
    if (dialect === "postgres") {
      const client = new SQL(t.database.url, { max: 1 });
      for (const statement of statements) await client.unsafe(statement);
      // The table counter of activations (db/row-counts.ts) is kept by triggers: the rows above moved it.
      await client.unsafe("ANALYZE");
      db = {
        orm: drizzleBunSql({ client, schema: pgSchema.tables, logger }),
        tables: pgSchema.tables,
        dialect: "postgres",
      } as unknown as Database;
      planOf = async ({ sql, params }) =>
        (await client.unsafe(`EXPLAIN ${sql}`, params)).map(
          (row: { "QUERY PLAN": string }) => row["QUERY PLAN"],
        );
      close = () => client.close();
    } else {
      const file = new Sqlite(sqlitePathFromUrl(t.database.url));
      file.exec("PRAGMA busy_timeout = 5000");
      file.exec("BEGIN");
      for (const statement of statements) file.exec(statement);
      file.exec("COMMIT");
      db = {
        orm: drizzleBunSqlite({ client: file, schema: sqliteSchema.tables, logger }),
        tables: sqliteSchema.tables,
        dialect: "sqlite",
      } as unknown as Database;
      planOf = async ({ sql, params }) =>
        file
          .query(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...(params as string[]))
          .map((row) => (row as { detail: string }).detail);
      close = () => file.close();
    }
    store = new EmbeddedStore(db, fixedClock("2026-11-21T10:00:00.000Z"), 4);
  });
  afterAll(async () => {
    await close?.();
    await t?.close();
  });

  const byEmail = (direction: "asc" | "desc") => [{ field: "email" as const, direction }];
  const emails = (rows: { user: { email: string } }[]) => rows.map((row) => row.user.email);

  test("a wide prefix: more than the bound, one page of the first matches sorted, no page past them", async () => {
    const first = await searchUsersPage(db, store, "WIDE", { sort: byEmail("asc"), limit: 25, offset: 0 });
    expect(first.total).toEqual({ count: USER_SEARCH_BOUND, more: true });
    expect(first.rows).toHaveLength(25);
    expect(first.hasNext).toBe(true);
    expect(emails(first.rows).every((email) => email.startsWith("wide"))).toBe(true);
    expect(emails(first.rows)).toEqual([...emails(first.rows)].sort());
    const last = await searchUsersPage(db, store, "wide", {
      sort: byEmail("desc"),
      limit: 25,
      offset: USER_SEARCH_BOUND - 25,
    });
    expect(last.rows).toHaveLength(25);
    expect(last.hasNext).toBe(false);
    expect(emails(last.rows)).toEqual([...emails(last.rows)].sort().reverse());
    const past = await searchUsersPage(db, store, "wide", {
      sort: byEmail("asc"),
      limit: 25,
      offset: USER_SEARCH_BOUND,
    });
    expect(past).toEqual({ rows: [], hasNext: false, total: { count: USER_SEARCH_BOUND, more: true } });
  });

  test("a prefix within the bound: exactly GET /user's page and total", async () => {
    // wide1200…wide1299 (the seeded ids start at 1000): 100 users.
    for (const [direction, offset] of [
      ["asc", 0],
      ["desc", 75],
    ] as const) {
      const window = { sort: byEmail(direction), limit: 25, offset };
      const bounded = await searchUsersPage(db, store, "wide12", window);
      const exact = await searchUsers(db, store, "wide12", window);
      if (!("rows" in exact)) throw new Error("a page is never a stream");
      expect(bounded.total).toEqual({ count: 100, more: false });
      expect(exact.total).toBe(100);
      expect(emails(bounded.rows)).toEqual(emails(exact.rows));
      // The order the database's ORDER BY gives (the store without `within`), sorted in memory.
      const sql = await store.searchUsers({ prefix: "wide12", ...window });
      expect(emails(bounded.rows)).toEqual(sql.map((user) => user.email));
      expect(bounded.hasNext).toBe(offset + 25 < 100);
    }
  });

  test("by name: a first name all share is more than the bound; a name written twice counts once", async () => {
    const readers = await searchUsersPage(db, store, "Reader", {
      sort: byEmail("asc"),
      limit: 25,
      offset: 0,
    });
    expect(readers.total).toEqual({ count: USER_SEARCH_BOUND, more: true });
    expect(readers.rows).toHaveLength(25);
    expect(emails(readers.rows)).toEqual([...emails(readers.rows)].sort());
    // USER_SEARCH_BOUND + 1 rows of one user's first name: the range stops with one user read,
    // which must not be taken for all there are.
    const window = { sort: byEmail("asc"), limit: 25, offset: 0 };
    const twice = await searchUsersPage(db, store, "twice", window);
    expect(twice.total).toEqual({ count: 1, more: false });
    expect(emails(twice.rows)).toEqual(["wide1000@example.com"]);
    const exact = await searchUsers(db, store, "twice", window);
    if (!("rows" in exact)) throw new Error("a page is never a stream");
    expect([exact.total, emails(exact.rows)]).toEqual([1, ["wide1000@example.com"]]);
    expect(await store.countUsers("twi", 1)).toBe(1);
  });

  test("a rare prefix is read from the indexes alone, in the console and the API", async () => {
    caught = [];
    const window = { sort: byEmail("asc"), limit: 25, offset: 0 };
    // "twice": the name range stops at the bound with one user, so the whole ranges are read.
    for (const [prefix, email] of [
      ["wide1234", "wide1234@example.com"],
      ["twice", "wide1000@example.com"],
    ] as const) {
      const page = await searchUsersPage(db, store, prefix, window);
      expect([page.total, emails(page.rows)]).toEqual([{ count: 1, more: false }, [email]]);
      const exact = await searchUsers(db, store, prefix, window);
      if (!("rows" in exact)) throw new Error("a page is never a stream");
      expect([exact.total, emails(exact.rows)]).toEqual([1, [email]]);
    }
    const reads = caught.filter((s) => /from "store_user(meta)?"/i.test(s.sql));
    expect(reads.length).toBeGreaterThan(4);
    for (const statement of reads) {
      const plan = await planOf(statement);
      const scans = plan.filter((line) =>
        db.dialect === "sqlite"
          ? /^SCAN (store_user|store_usermeta)\b/.test(line)
          : /Seq Scan on (store_user|store_usermeta)\b/.test(line),
      );
      expect([statement.sql, scans]).toEqual([statement.sql, []]);
    }
  });

  test("a filter keeping more than the bound: 'more than', the page as the API's", async () => {
    const window = {
      sort: [{ field: "createdAt" as const, direction: "desc" as const }],
      limit: 25,
      offset: 50,
    };
    const bounded = await listActivationsPage(db, window, { source: "code" });
    expect(bounded.total).toEqual({ count: ACTIVATION_COUNT_BOUND, more: true });
    expect(bounded.hasNext).toBe(true);
    const exact = await listActivations(db, window, { source: "code" });
    if (!("rows" in exact)) throw new Error("a page is never a stream");
    expect(exact.total).toBe(BY_CODE);
    expect(bounded.rows.map((row) => row.id)).toEqual(exact.rows.map((row) => row.id));
    const deep = await listActivationsPage(
      db,
      { ...window, offset: ACTIVATION_COUNT_BOUND },
      { source: "code" },
    );
    expect(deep.rows).toEqual([]);
    const manual = await listActivationsPage(db, { ...window, offset: 0 }, { source: "manual" });
    expect(manual.total).toEqual({ count: BY_HAND, more: false });
    expect(manual.rows).toHaveLength(25);
    const all = await listActivationsPage(db, { ...window, offset: 0 });
    expect(all.total).toEqual({ count: BY_CODE + BY_HAND, more: false });
  });

  test("the plans: each count stops at the bound, no scan of the users or the activations", async () => {
    caught = [];
    await searchUsersPage(db, store, "wide", { sort: byEmail("asc"), limit: 25, offset: 0 });
    await searchUsersPage(db, store, "wide", {
      sort: [{ field: "login", direction: "desc" }],
      limit: 25,
      offset: 0,
    });
    await listActivationsPage(
      db,
      { sort: [{ field: "createdAt", direction: "desc" }], limit: 25, offset: 0 },
      { source: "code" },
    );
    const reads = caught.filter(
      (s) => /from "(store_user|store_usermeta|activation)"/i.test(s.sql) && /limit/i.test(s.sql),
    );
    // The user search counts by reading each range up to the bound (EmbeddedStore.firstMatches).
    const counts = reads.filter((s) => /^select count\(\*\)/i.test(s.sql));
    expect(counts.length).toBe(1);
    for (const statement of reads) {
      const plan = await planOf(statement);
      const text = plan.join("\n");
      if (db.dialect === "sqlite") {
        expect([
          statement.sql,
          plan.filter((line) => /^SCAN (store_user|store_usermeta|activation)\b/.test(line)),
        ]).toEqual([statement.sql, []]);
      } else {
        // A Limit over every read of the table: a wide prefix (an eighth of the users here) is
        // read by a sequential scan that stops at the bound + 1st match, as Postgres expects the
        // matches spread over the table (the statement reading the page's 25 users by key has no
        // LIMIT of its own: it is a list of ids).
        if (!/ = ANY|in \(\$/i.test(statement.sql)) {
          expect([statement.sql, /Limit/.test(text)]).toEqual([statement.sql, true]);
        }
        // A plan node's line is the first or starts with "->"; its parent is the nearest node
        // above it indented less. A sequential scan's parent must be the Limit itself (not a sort
        // or a join under it, which would read the whole scan first).
        const indent = (line: string) => line.search(/\S/);
        const isNode = (line: string, j: number) => j === 0 || /^\s*->/.test(line);
        for (const [i, line] of plan.entries()) {
          if (!/Seq Scan on (store_user|activation)\b/.test(line)) continue;
          const parent = plan
            .slice(0, i)
            .findLast((above, j) => isNode(above, j) && indent(above) < indent(line));
          expect([statement.sql, line, parent?.includes("Limit")]).toEqual([statement.sql, line, true]);
        }
        if (process.env.SHOW_PLANS) console.log(statement.sql, "\n", text);
      }
    }
    for (const statement of counts) {
      const plan = await planOf(statement);
      if (db.dialect === "postgres") {
        const aggregate = plan.findIndex((line) => /Aggregate/.test(line));
        const limit = plan.findIndex((line) => /Limit/.test(line));
        expect([statement.sql, aggregate >= 0 && limit > aggregate]).toEqual([statement.sql, true]);
      } else {
        expect(statement.sql).toMatch(/limit \?/i);
      }
    }
  });

  test("the screens say 'more than' and ask for a narrower search", async () => {
    const users = await t.app.request("/console/users?q=wide", {
      headers: { Cookie: `__Host-bookdist-console=${cookie}` },
    });
    expect(users.status).toBe(200);
    const usersText = textOf(await users.text());
    expect(usersText).toContain(`More than ${USER_SEARCH_BOUND.toLocaleString("en-US")} users match “wide”`);
    expect(usersText).toContain(`Page 1 · more than ${USER_SEARCH_BOUND.toLocaleString("en-US")} in all`);
    const exact = textOf(
      await (
        await t.app.request("/console/users?q=wide12", {
          headers: { Cookie: `__Host-bookdist-console=${cookie}` },
        })
      ).text(),
    );
    expect(exact).toContain("Page 1 of 4 · 100 in all");
    const get = async (path: string) =>
      textOf(
        await (
          await t.app.request(path, { headers: { Cookie: `__Host-bookdist-console=${cookie}` } })
        ).text(),
      );
    const bound = ACTIVATION_COUNT_BOUND.toLocaleString("en-US");
    expect(await get("/console/activations?source=code")).toContain(`Page 1 · more than ${bound} in all`);
    expect(await get(`/console/activations?source=code&page=${ACTIVATION_COUNT_BOUND / 25}`)).toContain(
      `More than ${bound} activations match: narrow the filter`,
    );
    expect(await get("/console/activations?source=manual")).toContain(`Page 1 of 2 · ${BY_HAND} in all`);
  });
});
