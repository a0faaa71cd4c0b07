// The OPDS feeds that filter the reader's shelf (Recently updated, a search; README, Reading apps)
// on a Postgres database with a catalogue twice the reader's shelf and its statistics, as at the
// scale bench's size: the planner's own choice (nothing priced out) must find the feed's set once
// and never read a whole table. The statements are the repository's own, caught by a logger.
// Before the set was found once (repositories/activations.ts filteredCatalogPage), the planner
// drove Recently updated from a sequential scan of book_version.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import type { Database } from "#db";
import * as pgSchema from "../../src/db/schema/pg";
import { readCatalogPage } from "../../src/repositories/activations";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { onlyIn } from "../helpers/requires";

const READER = "00000000-0000-4000-8000-00000000000a";
const BOOKS = 4_000;
const HELD = 2_000;

interface Statement {
  sql: string;
  params: unknown[];
}

describe.if(onlyIn(testDialect === "postgres", "needs TEST_DATABASE_URL: Postgres's planner"))(
  "OPDS feeds on Postgres: the planner's choice",
  () => {
    let database: TestDatabase;
    let client: SQL;
    let db: Database;
    let caught: Statement[] = [];

    beforeAll(async () => {
      database = await createTestDatabase();
      await database.handle.close();
      client = new SQL(database.url, { max: 1 });
      const orm = drizzleBunSql({
        client,
        schema: pgSchema.tables,
        logger: { logQuery: (sql: string, params: unknown[]) => caught.push({ sql, params }) },
      });
      db = { orm, tables: pgSchema.tables, dialect: "postgres" } as unknown as Database;
      // Book i: three versions (codes 1–3), the third with an archive; other readers hold every
      // book; the reader holds books 1…HELD; every fifth held book's newest version changed lately.
      const sha = "0".repeat(64);
      await client.unsafe(`INSERT INTO blob (sha256, size, created_at) VALUES ('${sha}', 1, now())`);
      await client.unsafe(
        `INSERT INTO book (id, title, author, language, created_at, updated_at)
         SELECT i, 'Book ' || i, 'Author ' || (i % 97), 'en', now(), now() FROM generate_series(1, ${BOOKS}) i`,
      );
      await client.unsafe(
        `INSERT INTO book_version (book_id, version_code, version_name, archive_sha256, archive_size,
           archive_filename, created_at, updated_at)
         SELECT (i - 1) / 3 + 1, (i - 1) % 3 + 1, '1.' || ((i - 1) % 3),
                CASE WHEN (i - 1) % 3 = 2 THEN '${sha}' END, CASE WHEN (i - 1) % 3 = 2 THEN 1 END,
                CASE WHEN (i - 1) % 3 = 2 THEN 'book.zip' END,
                now() - interval '1 year', now() - interval '1 year'
         FROM generate_series(1, ${BOOKS * 3}) i`,
      );
      await client.unsafe(
        `INSERT INTO activation (book_id, user_uuid, created_at, updated_at)
         SELECT (i % ${BOOKS}) + 1, lpad(to_hex(i / ${BOOKS}), 8, '0') || '-0000-4000-8000-000000000000', now(), now()
         FROM generate_series(0, ${BOOKS * 20 - 1}) i`,
      );
      await client.unsafe(
        `INSERT INTO activation (book_id, user_uuid, created_at, updated_at)
         SELECT i, $1, now() - (i || ' seconds')::interval, now() FROM generate_series(1, ${HELD}) i`,
        [READER],
      );
      await client.unsafe(
        `UPDATE book_version SET updated_at = now() - interval '10 days'
         WHERE version_code = 3 AND book_id <= ${HELD} AND book_id % 5 = 0`,
      );
      await client.unsafe("ANALYZE");
    });
    afterAll(async () => {
      await client?.close();
      await database?.drop();
    });

    /**
     * The statement's plan for these values, and its generic plan: the app's driver prepares each
     * statement once per connection, and after a few runs Postgres may keep one plan for any values.
     */
    async function plansOf(sql: string, params: unknown[]): Promise<string[][]> {
      const lines = (rows: { "QUERY PLAN": string }[]) => rows.map((row) => row["QUERY PLAN"]);
      const custom = lines(await client.unsafe(`EXPLAIN ${sql}`, params));
      const literal = (value: unknown) =>
        typeof value === "number"
          ? String(value)
          : `'${(value instanceof Date ? value.toISOString() : String(value)).replace(/'/g, "''")}'`;
      const generic = await client.begin(async (tx) => {
        await tx.unsafe("SET LOCAL plan_cache_mode = force_generic_plan");
        await tx.unsafe(`PREPARE opds_plan AS ${sql}`);
        const rows = await tx.unsafe(`EXPLAIN EXECUTE opds_plan(${params.map(literal).join(", ")})`);
        await tx.unsafe("DEALLOCATE opds_plan");
        return lines(rows);
      });
      return [custom, generic];
    }

    const since = () => new Date(Date.now() - 90 * 24 * 60 * 60 * 1000);
    for (const [name, filter, total, index] of [
      ["Recently updated", () => ({ changedSince: since() }), HELD / 5, "book_version_changed_idx"],
      ["a search", () => ({ search: "Author 7" }), undefined, "activation_user_"],
    ] as const) {
      test(`${name}: page 0 and its total without reading activation or book_version whole`, async () => {
        caught = [];
        const page = await readCatalogPage(db, READER, filter(), { limit: 50, offset: 0 });
        expect(page.rows).toHaveLength(50);
        if (total !== undefined) expect(page.total).toBe(total);
        expect(caught).toHaveLength(1);
        const { sql, params } = caught[0]!;
        for (const plan of await plansOf(sql, params)) {
          // Recently updated finds its set once, for the page and the total.
          if (total !== undefined)
            expect(plan.filter((line) => /CTE Scan on found/.test(line))).toHaveLength(2);
          expect(plan.some((line) => line.includes(index))).toBe(true);
          expect(plan.filter((line) => /Seq Scan on (activation|book_version)\b/.test(line))).toEqual([]);
        }
      });
    }
  },
);
