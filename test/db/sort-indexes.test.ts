// Every documented sort field is backed by an index: page 0 of every list, in every
// sort field the routes offer and either direction, is read in index order, never sorted. The
// planner is asked about the very statements the repositories run (their SQL and parameters are
// caught by a logger), on a freshly migrated database: SQLite must not plan a temp B-tree for the
// ORDER BY; Postgres, with sequential and bitmap scans and sorts priced out (so an empty table
// does not make a sort look cheaper), must still find a plan without a Sort node, incremental or not.

import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import type { Database } from "#db";
import * as pgSchema from "../../src/db/schema/pg";
import * as sqliteSchema from "../../src/db/schema/sqlite";
import type { ListWindow } from "../../src/lib/list-window";
import {
  activationSortFields,
  listActivations,
  listBooksWithActivation,
  readCatalogPage,
} from "../../src/repositories/activations";
import { apkSortFields, listApks } from "../../src/repositories/apks";
import { auditEventSortFields, listAuditEvents } from "../../src/repositories/audit-events";
import {
  bookVersionSortFields,
  listBookVersions,
  versionsOfBookSortFields,
} from "../../src/repositories/book-versions";
import { bookSortFields, listBooks } from "../../src/repositories/books";
import { dailyCounts } from "../../src/repositories/daily-counts";
import { listQrCodes, qrCodeSortFields } from "../../src/repositories/qr-codes";
import { latestGrants } from "../../src/repositories/shop-orders";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";

interface Statement {
  sql: string;
  params: unknown[];
}

/** A list read of page 0 in `window`'s order. */
type ListRead = (db: Database, window: ListWindow<string>) => Promise<unknown>;

const USER = "00000000-0000-4000-8000-000000000001";

/**
 * The lists whose order can be chosen, with the sort fields their routes offer. Two of one book's
 * lists are exceptions, asked only for the orders the index on the book serves: its versions (a
 * handful, which sort in no time) and its activations by createdAt (50 a book at S3; an index for
 * it cost every redemption 14 µs of its insert on SQLite, while a book with 100,000 of them
 * sorts them in 18 ms on SQLite and 41 ms on Postgres, on an admin's page).
 */
/** `index`: the index the page must be read from, where another would also avoid the sort. */
const lists: { name: string; fields: readonly string[]; read: ListRead; index?: string }[] = [
  { name: "GET /book", fields: bookSortFields, read: (db, w) => listBooks(db, w as never) },
  {
    name: "GET /audit-event",
    fields: auditEventSortFields,
    read: (db, w) => listAuditEvents(db, w as never),
  },
  {
    name: "GET /audit-event?actor=…",
    fields: ["id"],
    read: (db, w) => listAuditEvents(db, w as never, { actorEmail: "admin@example.com" }),
  },
  {
    name: "GET /audit-event?actor=<uuid>",
    fields: ["id"],
    read: (db, w) => listAuditEvents(db, w as never, { actorUuid: USER }),
  },
  {
    name: "GET /audit-event?targetType=…&targetId=…",
    fields: ["id"],
    read: (db, w) => listAuditEvents(db, w as never, { targetType: "book", targetId: "7" }),
  },
  {
    name: "GET /book/all-books-with-version-and-activation",
    fields: bookSortFields,
    read: (db, w) => listBooksWithActivation(db, USER, w as never),
  },
  {
    name: "GET /bookversion",
    fields: bookVersionSortFields,
    read: (db, w) => listBookVersions(db, w as never),
  },
  {
    name: "GET /book/{id}/bookversions",
    fields: versionsOfBookSortFields.filter((field) => field !== "createdAt"),
    read: (db, w) => listBookVersions(db, w as never, 1),
  },
  { name: "GET /activation", fields: activationSortFields, read: (db, w) => listActivations(db, w as never) },
  {
    name: "GET /book/{id}/activations",
    fields: ["id", "bookId"],
    read: (db, w) => listActivations(db, w as never, { bookId: 1 }),
  },
  // GET /activation's filters (API.md §10): a user's or a book's few rows are found by their
  // index above; a source (by hand may be a sliver of 5 M) and a date range by theirs.
  {
    name: "GET /activation?source=manual",
    fields: ["id", "createdAt"],
    read: (db, w) => listActivations(db, w as never, { source: "manual" }),
  },
  {
    name: "GET /activation?source=order&from=…&to=…",
    fields: ["createdAt"],
    read: (db, w) =>
      listActivations(db, w as never, {
        source: "order",
        from: new Date("2026-11-01T00:00:00Z"),
        to: new Date("2026-11-30T00:00:00Z"),
      }),
  },
  {
    name: "GET /activation?userUuid=…&source=code",
    fields: ["createdAt"],
    index: "activation_user_created_at_idx",
    read: (db, w) => listActivations(db, w as never, { userUuid: USER, source: "code" }),
  },
  {
    name: "GET /activation?from=…",
    fields: ["createdAt"],
    read: (db, w) => listActivations(db, w as never, { from: new Date("2026-11-01T00:00:00Z") }),
  },
  {
    name: "GET /activation-qr-code",
    fields: qrCodeSortFields,
    read: (db, w) => listQrCodes(db, {}, w as never),
  },
  {
    name: "GET /activation-qr-code/ofbook/{bookId}",
    fields: qrCodeSortFields,
    read: (db, w) => listQrCodes(db, { bookId: 1 }, w as never),
  },
  {
    name: "GET /activation-qr-code/ofbook/{bookId}/null-activations",
    fields: ["id"],
    read: (db, w) => listQrCodes(db, { bookId: 1, unused: true }, w as never),
  },
  { name: "GET /apk", fields: apkSortFields, read: (db, w) => listApks(db, w as never) },
];

describe(`every documented sort field has an index (${testDialect})`, () => {
  let database: TestDatabase;
  let db: Database;
  let caught: Statement[] = [];
  let explain: (statement: Statement) => Promise<string[]>;
  let close = async () => {};
  const logger = { logQuery: (sql: string, params: unknown[]) => caught.push({ sql, params }) };

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.dialect === "sqlite") {
      const connection = new SqliteConnection(database.url.slice("sqlite:".length), { strict: true });
      const orm = drizzleSqlite({ client: connection, schema: sqliteSchema.tables, logger });
      db = { orm, tables: sqliteSchema.tables, dialect: "sqlite" } as unknown as Database;
      explain = async ({ sql, params }) =>
        connection
          .query<{ detail: string }, never[]>(`EXPLAIN QUERY PLAN ${sql}`)
          .all(...(params as never[]))
          .map((row) => row.detail);
      close = async () => connection.close();
    } else {
      const client = new SQL(database.url, { max: 1 });
      const orm = drizzleBunSql({ client, schema: pgSchema.tables, logger });
      db = { orm, tables: pgSchema.tables, dialect: "postgres" } as unknown as Database;
      explain = (statement) =>
        client.begin(async (tx) => {
          // Whether a plan without a Sort exists at all, whatever an empty table makes cheapest.
          for (const setting of [
            "enable_seqscan",
            "enable_bitmapscan",
            "enable_sort",
            "enable_incremental_sort",
          ]) {
            await tx.unsafe(`SET LOCAL ${setting} = off`);
          }
          const rows: { "QUERY PLAN": string }[] = await tx.unsafe(
            `EXPLAIN ${statement.sql}`,
            statement.params,
          );
          return rows.map((row) => row["QUERY PLAN"]);
        });
      close = () => client.close();
    }
  });
  afterAll(async () => {
    await close();
    await database.drop();
  });

  test("the OPDS shelf's page 0 (My books, newest activation first) is read in index order", async () => {
    caught = [];
    await readCatalogPage(db, USER, {}, { limit: 50, offset: 0 });
    const pages = caught.filter((statement) => /order by/i.test(statement.sql));
    expect(pages).toHaveLength(1);
    const plan = await explain(pages[0]!);
    if (testDialect === "sqlite") {
      expect(plan.filter((line) => line.includes("TEMP B-TREE"))).toEqual([]);
      expect(plan.some((line) => line.includes("activation_user_created_at_idx"))).toBe(true);
    } else {
      expect(plan.filter((line) => /\bSort\b/.test(line))).toEqual([]);
      expect(plan.some((line) => line.includes("activation_user_created_at_idx"))).toBe(true);
    }
  });

  // The console: the shop's latest grants (/console/shop) walk the primary key backwards; the
  // dashboard's last 30 days (active readers, the charts) are a range of daily_count's key.
  for (const [name, read, sqliteIndex, pgIndex] of [
    ["the latest shop grants", () => latestGrants(db, 26, 0), "shop_order_grant", "shop_order_grant_pkey"],
    [
      "the dashboard's days",
      () => dailyCounts(db, "2026-11-01"),
      "daily_count",
      "daily_count_day_metric_slot_pk",
    ],
  ] as const) {
    test(`${name}: read along an index, no sort of the table`, async () => {
      caught = [];
      await read();
      expect(caught).toHaveLength(1);
      const plan = await explain(caught[0]!);
      if (testDialect === "sqlite") {
        expect(plan.filter((line) => line.includes("TEMP B-TREE") && !line.includes("GROUP BY"))).toEqual([]);
        expect(plan.some((line) => line.includes(sqliteIndex))).toBe(true);
      } else {
        expect(plan.some((line) => line.includes(pgIndex))).toBe(true);
        expect(plan.filter((line) => /Seq Scan/.test(line))).toEqual([]);
      }
    });
  }

  // Recently updated finds its set once (a CTE that the page and the total both read), from the
  // versions changed in its window; a search reads the reader's activations.
  const since = new Date(Date.UTC(2026, 0, 1));
  for (const [name, filter, index] of [
    ["Recently updated", { changedSince: since }, "book_version_changed_idx"],
    ["a search", { search: "tolkien" }, "activation_user_"],
  ] as const) {
    test(`the OPDS feed of ${name}: page 0 and its total, found by index`, async () => {
      caught = [];
      await readCatalogPage(db, USER, filter, { limit: 50, offset: 0 });
      expect(caught).toHaveLength(1);
      const plan = await explain(caught[0]!);
      if (testDialect === "sqlite") {
        // SQLite (no ANALYZE) walks the reader's activations, with one seek per held book.
        expect(plan.some((line) => line.includes("activation_user_"))).toBe(true);
        expect(plan.filter((line) => /^SCAN (activation|book|book_version)\b/.test(line))).toEqual([]);
      } else {
        if ("changedSince" in filter) {
          expect(plan.filter((line) => /CTE Scan on found/.test(line))).toHaveLength(2);
        }
        expect(plan.some((line) => line.includes(index))).toBe(true);
        expect(plan.filter((line) => /Seq Scan/.test(line))).toEqual([]);
      }
    });
  }

  for (const list of lists) {
    for (const field of list.fields) {
      for (const direction of ["asc", "desc"] as const) {
        test(`${list.name}?sort=${field},${direction}&page=0`, async () => {
          caught = [];
          await list.read(db, { sort: [{ field, direction }], limit: 20, offset: 0 });
          expect(caught).toHaveLength(1);
          const plan = await explain(caught[0]!);
          if (testDialect === "sqlite") {
            expect(plan.filter((line) => line.includes("TEMP B-TREE"))).toEqual([]);
          } else {
            expect(plan.filter((line) => /\bSort\b/.test(line))).toEqual([]);
            expect(plan.some((line) => line.includes("Index"))).toBe(true);
          }
          if (list.index) expect(plan.some((line) => line.includes(list.index!))).toBe(true);
        });
      }
    }
  }
});
