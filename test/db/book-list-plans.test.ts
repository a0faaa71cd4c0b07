// A book's codes and activations, page 0 in every documented sort, on data skewed as print runs
// make it (issue 41): each run's codes and activations a contiguous range of ids, the runs of
// the books scattered, and the big book's half of the table at the end of the ids and times.
// The statements are the repository's own, caught by a logger; the plan the database picks for
// them (Postgres: its plan for the values and its generic plan, which the driver's prepared
// statement gets after five runs) must read the page from an index that leads with book_id, in
// the page's order: never the primary key or a (field, id) index filtered by book, which here
// read half the table for twenty rows, and never a sort of the book's every row.
import { Database as Sqlite } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { drizzle as drizzleBunSqlite } from "drizzle-orm/bun-sqlite";
import type { Database } from "#db";
import { sqlitePathFromUrl } from "../../src/db/client";
import * as pgSchema from "../../src/db/schema/pg";
import * as sqliteSchema from "../../src/db/schema/sqlite";
import { activationSortFields, listActivations } from "../../src/repositories/activations";
import { listQrCodes, qrCodeSortFields } from "../../src/repositories/qr-codes";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";

const BOOKS = 500;
/** Codes (and activations) per print run of a book other than the big one. */
const PER_RUN = 20;
/** The big book's run, the last: as many rows as all other books' together. */
const BIG_RUN = (BOOKS - 1) * PER_RUN;
const BIG_BOOK = 1;
const ROWS = BOOKS * PER_RUN + BIG_RUN;
const PAGE = 20;

type Sort = { field: string; direction: "asc" | "desc" }[];
type Row = { id: number } & Record<string, unknown>;

interface Statement {
  sql: string;
  params: unknown[];
}

/** Run p's book: the runs scattered over books 2…BOOKS (7919 is coprime to BOOKS-1), then book 1. */
const bookOfPlace = (k: string) =>
  `CASE WHEN ${k} >= ${(BOOKS - 1) * PER_RUN} THEN ${BIG_BOOK} ELSE (${k} / ${PER_RUN}) * 7919 % ${BOOKS - 1} + 2 END`;

describe(`a book's lists on skewed data (${testDialect}): the planner's choice`, () => {
  let database: TestDatabase;
  let db: Database;
  let caught: Statement[] = [];
  let planOf: (statement: Statement) => Promise<string[][]>;
  let idsOf: (sql: string) => Promise<number[]>;
  let close: () => Promise<void> | void;

  beforeAll(async () => {
    database = await createTestDatabase();
    await database.handle.close();
    const logger = { logQuery: (sql: string, params: unknown[]) => caught.push({ sql, params }) };
    if (database.dialect === "postgres") {
      const client = new SQL(database.url, { max: 1 });
      const orm = drizzleBunSql({ client, schema: pgSchema.tables, logger });
      db = { orm, tables: pgSchema.tables, dialect: "postgres" } as unknown as Database;
      await seed(
        (text) => client.unsafe(text),
        "generate_series(0, $n - 1) AS s(k)",
        "now() + k * interval '1 second'",
      );
      await client.unsafe("ANALYZE");
      planOf = (statement) => postgresPlans(client, statement);
      idsOf = async (text) =>
        (await client.unsafe(text)).map((row: { id: string | number }) => Number(row.id));
      close = () => client.close();
    } else {
      const file = new Sqlite(sqlitePathFromUrl(database.url));
      const orm = drizzleBunSqlite({ client: file, schema: sqliteSchema.tables, logger });
      db = { orm, tables: sqliteSchema.tables, dialect: "sqlite" } as unknown as Database;
      file.exec("BEGIN");
      await seed(
        (text) => file.exec(text),
        "(WITH RECURSIVE s(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM s WHERE k < $n - 1) SELECT k FROM s) AS s",
        `${Date.UTC(2025, 0, 1)} + k * 1000`,
      );
      file.exec("COMMIT");
      planOf = async ({ sql, params }) => [
        file
          .query(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...(params as number[]))
          .map((row) => (row as { detail: string }).detail),
      ];
      idsOf = async (text) =>
        file
          .query(text)
          .all()
          .map((row) => Number((row as { id: number }).id));
      close = () => file.close();
    }
  });
  afterAll(async () => {
    await close?.();
    await database?.drop();
  });

  /** Books 1…BOOKS; code and activation k (id k+1) in run k div PER_RUN, created in id order. */
  async function seed(exec: (sql: string) => unknown, series: string, timeOf: string) {
    const rows = series.replaceAll("$n", String(ROWS));
    await exec(
      `INSERT INTO book (id, title, author, language, created_at, updated_at)
       SELECT k + 1, 'Book ' || k, 'Author', 'en', ${timeOf}, ${timeOf} FROM ${series.replaceAll("$n", String(BOOKS))}`,
    );
    await exec(
      `INSERT INTO activation_qr_code (id, book_id, code, enabled, max_activations, activation_count, label,
         created_at, updated_at)
       SELECT k + 1, ${bookOfPlace("k")}, 'CODE-' || k, k % 7 <> 0, 1, 0,
              'run', ${timeOf}, ${timeOf}
       FROM ${rows}`,
    );
    await exec(
      `INSERT INTO activation (id, book_id, user_uuid, created_at, updated_at)
       SELECT k + 1, ${bookOfPlace("k")}, 'reader-' || k, ${timeOf}, ${timeOf} FROM ${rows}`,
    );
  }

  const lists = [
    {
      name: "GET /activation-qr-code/ofbook/{bookId}",
      table: "activation_qr_code",
      fields: qrCodeSortFields,
      read: (bookId: number, sort: Sort, after?: Row) =>
        listQrCodes(db, { bookId }, { sort: sort as never, limit: PAGE, offset: 0 }, after as never),
    },
    {
      name: "GET /book/{id}/activations",
      table: "activation",
      fields: activationSortFields,
      read: (bookId: number, sort: Sort, after?: Row) =>
        listActivations(db, { sort: sort as never, limit: PAGE, offset: 0 }, { bookId }, after as never),
    },
  ] as const;
  const column = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

  for (const list of lists) {
    const sorts = [
      { label: "unsorted", sort: [] as Sort },
      ...list.fields.flatMap((field) =>
        (["asc", "desc"] as const).map((direction) => ({
          label: `sort=${field},${direction}`,
          sort: [{ field, direction }],
        })),
      ),
    ];
    for (const { label, sort } of sorts) {
      test(`${list.name} ${label}: page 0 of the big book read in order from a book index`, async () => {
        caught = [];
        const rows = await list.read(BIG_BOOK, sort);
        expect(rows.map((row) => row.id)).toEqual(await idsOf(referenceOf(list.table, sort)));
        expect(caught).toHaveLength(1);
        await expectBookIndexIn(list.table, caught);
      });
      // A whole list's chunks (db/order-by.ts readAfter) are read by the same indexes, each from
      // where the last ended: on SQLite an index seek on (book_id = ?, …, id > ?).
      test(`${list.name} ${label}: a chunk after the middle of the big book from a book index`, async () => {
        const whole = await idsOf(referenceOf(list.table, sort, ROWS));
        const middle = whole[Math.floor(whole.length / 2)]!;
        const afterRow = (await rowById(list.table, middle)) as Row;
        caught = [];
        const rows = await list.read(BIG_BOOK, sort, afterRow);
        const at = whole.indexOf(middle);
        expect(rows.map((row) => row.id)).toEqual(whole.slice(at + 1, at + 1 + PAGE));
        expect(caught.length).toBeGreaterThan(0);
        await expectBookIndexIn(list.table, caught);
      });
    }
  }

  /** The big book's ids in `sort`'s order, by a plain statement. */
  function referenceOf(table: string, sort: Sort, limit = PAGE): string {
    const order =
      sort.length === 0 ? "id" : `${column(sort[0]!.field)} ${sort[0]!.direction}, id ${sort[0]!.direction}`;
    return `SELECT id FROM ${table} WHERE book_id = ${BIG_BOOK} ORDER BY ${order} LIMIT ${limit}`;
  }

  /** A row as the repository maps it, for a keyset's `after`. */
  async function rowById(table: string, id: number): Promise<unknown> {
    const { activation, activationQrCode } = db.tables;
    const target = table === "activation" ? activation : activationQrCode;
    const orm = db.orm as unknown as {
      select(): { from(t: unknown): { where(c: unknown): Promise<unknown[]> } };
    };
    const [row] = await orm.select().from(target).where(eq(target.id, id));
    return row;
  }

  /** Every plan of the statements reads from an index of `table` that leads with book_id, in order. */
  async function expectBookIndexIn(table: string, statements: Statement[]) {
    for (const statement of statements) {
      for (const plan of await planOf(statement)) {
        const text = plan.join("\n");
        const indexes = [
          ...text.matchAll(/(?:USING (?:COVERING )?INDEX|using|Bitmap Index Scan on) (\w+)/g),
        ].map((match) => match[1]);
        expect(indexes.length).toBeGreaterThan(0);
        // A keyset's tie-group branch (`created_at = last's AND id > last's`) may seek in the
        // (created_at, id) index instead and sort what it finds: that one time's rows, at most a
        // batch's.
        const tieGroup = /Index Cond: \(\(created_at = [^)]*\) AND \(id [<>]/.test(text);
        for (const index of indexes) {
          expect(index).toStartWith(
            tieGroup && index === `${table}_created_at_idx` ? index : `${table}_book_`,
          );
        }
        // No scan of the table, no sort of the book's rows (Postgres: Sort; SQLite: a temp b-tree),
        // but for the tie group's few.
        expect(text).not.toMatch(tieGroup ? /Seq Scan|^SCAN /m : /Seq Scan|\bSort\b|TEMP B-TREE|^SCAN /m);
      }
    }
  }
});

/**
 * The statement's plan for these values, and its generic plan: the app's driver prepares each
 * statement once per connection, and after five runs Postgres may keep one plan for any values.
 */
let prepared = 0;

async function postgresPlans(client: SQL, { sql, params }: Statement): Promise<string[][]> {
  const lines = (rows: { "QUERY PLAN": string }[]) => rows.map((row) => row["QUERY PLAN"]);
  const custom = lines(await client.unsafe(`EXPLAIN ${sql}`, params));
  const literal = (value: unknown) =>
    typeof value === "number"
      ? String(value)
      : `'${(value instanceof Date ? value.toISOString() : String(value)).replace(/'/g, "''")}'`;
  // PREPARE outlives a rolled-back transaction: a name of its own each time.
  const name = `book_list_plan_${++prepared}`;
  const generic = await client.begin(async (tx) => {
    await tx.unsafe("SET LOCAL plan_cache_mode = force_generic_plan");
    await tx.unsafe(`PREPARE ${name} AS ${sql}`);
    const rows = await tx.unsafe(`EXPLAIN EXECUTE ${name}(${params.map(literal).join(", ")})`);
    await tx.unsafe(`DEALLOCATE ${name}`);
    return lines(rows);
  });
  return [custom, generic];
}
