// The counter rows behind the whole-table counts (migration 0004, db/row-counts.ts) and each book's
// code count (repositories/qr-codes.ts) stay exact:
// through inserts and deletes, a book's delete cascading to its versions and codes, transactions
// rolled back, concurrent writers on several Postgres connections, and the migration's backfill of
// a database filled before the counters existed.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq, getTableName } from "drizzle-orm";
import type { Database } from "#db";
import { countedRows, countedTables } from "../../src/db/row-counts";
import { queuedWrite, withTransaction } from "../../src/db/transaction";
import { countActivations, deleteActivation, insertActivation } from "../../src/repositories/activations";
import { countApks, deleteApk, insertApk } from "../../src/repositories/apks";
import { deleteAuditEventsBefore, insertAuditEvents } from "../../src/repositories/audit-events";
import { countBookVersions, insertBookVersion } from "../../src/repositories/book-versions";
import { countBooks, deleteBook, insertBook } from "../../src/repositories/books";
import { countQrCodes, insertQrCodes, type NewQrCode } from "../../src/repositories/qr-codes";
import {
  countShopProducts,
  deleteShopProduct,
  insertShopProduct,
} from "../../src/repositories/shop-products";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { migrateUntil } from "../helpers/migrations-until";

const now = new Date("2026-11-24T10:00:00.000Z");

/** The tables of countedTables, by their SQL names. */
function countedTablesOf(db: Database) {
  return Object.values(db.tables).filter((table) =>
    (countedTables as readonly string[]).includes(getTableName(table)),
  );
}

/** Each counted table: [name, its counter, count(*)]. */
async function countsOf(db: Database): Promise<[string, number, number][]> {
  const counts: [string, number, number][] = [];
  for (const table of countedTablesOf(db)) {
    const [row] = await db.orm.select({ n: count() }).from(table);
    counts.push([getTableName(table), await countedRows(db, table), Number(row?.n)]);
  }
  return counts;
}

/** Each book's code counter against its count(*), by book id. */
async function bookCodeCountsOf(db: Database) {
  const { activationQrCode: q, bookQrCodeCount: c } = db.tables;
  const counted = await db.orm.select({ bookId: q.bookId, n: count() }).from(q).groupBy(q.bookId);
  const kept = await db.orm.select().from(c);
  const byBook = (rows: { bookId: number; n: number }[]) =>
    Object.fromEntries(rows.map((row) => [row.bookId, Number(row.n)]));
  return { kept: byBook(kept), counted: byBook(counted) };
}

/**
 * Every counter equals its table's count(*), and each book's code counter its codes' (and
 * countQrCodes of the book answers it); answers the whole-table counters by table name.
 */
async function expectExact(db: Database): Promise<Record<string, number>> {
  const { kept, counted } = await bookCodeCountsOf(db);
  expect(kept).toEqual(counted);
  for (const [bookId, n] of Object.entries(counted)) {
    expect(await countQrCodes(db, { bookId: Number(bookId) })).toBe(n);
  }
  const counts = await countsOf(db);
  expect(counts.map(([name, counter]) => [name, counter])).toEqual(counts.map(([name, , n]) => [name, n]));
  return Object.fromEntries(counts.map(([name, counter]) => [name, counter]));
}

const codes = (bookId: number, n: number, tag: string): NewQrCode[] =>
  Array.from({ length: n }, (_, i) => ({
    bookId,
    code: `${tag}-${i}`,
    enabled: true,
    maxActivations: 1,
    label: null,
    expiresAt: null,
    batchId: null,
  }));

describe(`row counters (${testDialect})`, () => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.handle.db;
  });
  afterAll(() => database.drop());

  test("every counted table is counted: its counter follows inserts and deletes", async () => {
    expect(countedTablesOf(db).map(getTableName).sort()).toEqual([...countedTables].sort());
    expect(await expectExact(db)).toEqual({
      book: 0,
      book_version: 0,
      activation: 0,
      activation_qr_code: 0,
      apk: 0,
      shop_product: 0,
      audit_event: 0,
    });
    const book = await insertBook(
      db,
      { title: "Counted", author: null, isbn: null, description: null, language: null },
      now,
    );
    await insertBookVersion(
      db,
      { bookId: book.id, versionCode: 1, versionName: "1", releaseNotes: null },
      now,
    );
    const [code] = await insertQrCodes(db, codes(book.id, 3, "count"), now);
    const activation = await insertActivation(
      db,
      { bookId: book.id, userUuid: crypto.randomUUID(), qrCodeId: code!.id },
      now,
    );
    const apk = await insertApk(
      db,
      { kind: "bookapp", versionCode: 1, versionName: "1", releaseNotes: null },
      now,
    );
    const product = await insertShopProduct(db, { bookId: book.id, productId: 41, variationId: 0 }, now);
    await insertAuditEvents(
      db,
      [1, 2].map((i) => ({
        at: new Date(now.getTime() - i),
        actorUuid: null,
        actorEmail: null,
        actorVia: "system",
        action: "book.create",
        targetType: "book",
        targetId: String(i),
        changes: "{}",
        requestId: null,
        client: null,
      })),
    );
    expect(await expectExact(db)).toEqual({
      book: 1,
      book_version: 1,
      activation: 1,
      activation_qr_code: 3,
      apk: 1,
      shop_product: 1,
      audit_event: 2,
    });
    // The counts the endpoints answer read the counters.
    expect([await countBooks(db), await countBookVersions(db), await countActivations(db)]).toEqual([
      1, 1, 1,
    ]);
    expect([await countQrCodes(db), await countApks(db), await countShopProducts(db)]).toEqual([3, 1, 1]);

    await deleteActivation(db, activation.id);
    await deleteApk(db, apk.id);
    await deleteShopProduct(db, product.id);
    expect(await deleteAuditEventsBefore(db, now, 10)).toBe(2);
    expect(await expectExact(db)).toMatchObject({ activation: 0, apk: 0, shop_product: 0, audit_event: 0 });
  });

  test("a book's delete cascading to its versions and codes takes them off their counters", async () => {
    const book = await insertBook(
      db,
      { title: "Gone", author: null, isbn: null, description: null, language: null },
      now,
    );
    for (const versionCode of [1, 2]) {
      await insertBookVersion(
        db,
        { bookId: book.id, versionCode, versionName: "v", releaseNotes: null },
        now,
      );
    }
    await insertQrCodes(db, codes(book.id, 1200, "cascade"), now);
    const before = await expectExact(db);
    await deleteBook(db, book.id);
    expect(await expectExact(db)).toEqual({
      ...before,
      book: before.book! - 1,
      book_version: before.book_version! - 2,
      activation_qr_code: before.activation_qr_code! - 1200,
    });
  });

  test("a rolled-back transaction leaves the counters as they were", async () => {
    const before = await expectExact(db);
    const failing = withTransaction(db, async (tx) => {
      const book = await insertBook(
        tx,
        { title: "Never", author: null, isbn: null, description: null, language: null },
        now,
      );
      await insertQrCodes(tx, codes(book.id, 10, "rollback"), now);
      throw new Error("undone");
    });
    await expect(failing).rejects.toThrow("undone");
    expect(await expectExact(db)).toEqual(before);
  });

  test("a code moved to another book by hand moves its count", async () => {
    const from = await insertBook(
      db,
      { title: "From", author: null, isbn: null, description: null, language: null },
      now,
    );
    const to = await insertBook(
      db,
      { title: "To", author: null, isbn: null, description: null, language: null },
      now,
    );
    const [moved] = await insertQrCodes(db, codes(from.id, 2, "move"), now);
    const { activationQrCode: q } = db.tables;
    await queuedWrite(db, (tx) => tx.orm.update(q).set({ bookId: to.id }).where(eq(q.id, moved!.id)));
    await expectExact(db);
    expect([await countQrCodes(db, { bookId: from.id }), await countQrCodes(db, { bookId: to.id })]).toEqual([
      1, 1,
    ]);
  });

  test("writers on several connections at once keep the sum exact", async () => {
    const before = await expectExact(db);
    const book = await insertBook(
      db,
      { title: "Busy", author: null, isbn: null, description: null, language: null },
      now,
    );
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 4 === 3
          ? insertActivation(db, { bookId: book.id, userUuid: crypto.randomUUID() }, now)
          : insertQrCodes(db, codes(book.id, 5, `parallel-${i}`), now),
      ),
    );
    expect(await expectExact(db)).toMatchObject({
      book: before.book! + 1,
      activation: before.activation! + 10,
      activation_qr_code: before.activation_qr_code! + 150,
    });
  });
});

describe(`migration 0004 backfills the counters of a database filled before it (${testDialect})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.drop());

  test("each counter starts at its table's count(*)", async () => {
    const { db } = database.handle;
    const old = await migrateUntil(database, "sort-indexes-row-counts");
    expect(old.lastTag).toBe("0003_admin-grant-session-check");
    // Raw statements: the row_count table the query builder knows does not exist yet.
    const { run } = old;
    const at = old.timestamp(now);
    const yes = old.boolean(true);
    for (const id of [1, 2, 3]) {
      await run(
        `INSERT INTO book (id, title, created_at, updated_at) VALUES (${id}, 'Old ${id}', ${at}, ${at})`,
      );
      await run(`INSERT INTO book_version (book_id, version_code, version_name, created_at, updated_at)
                 VALUES (${id}, 1, '1', ${at}, ${at})`);
    }
    for (const id of [1, 2, 3, 4, 5, 6, 7]) {
      await run(`INSERT INTO activation_qr_code (book_id, code, enabled, max_activations, activation_count, created_at, updated_at)
                 VALUES (${(id % 3) + 1}, 'OLD-${id}', ${yes}, 1, 0, ${at}, ${at})`);
    }
    await run(`INSERT INTO activation (book_id, user_uuid, created_at, updated_at)
               VALUES (1, '3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91', ${at}, ${at})`);

    await old.migrateToEnd();

    expect(await expectExact(db)).toEqual({
      book: 3,
      book_version: 3,
      activation: 1,
      activation_qr_code: 7,
      apk: 0,
      shop_product: 0,
      audit_event: 0,
    });
    // And it goes on counting from there.
    await deleteBook(db, 3);
    expect(await expectExact(db)).toMatchObject({ book: 2, book_version: 2, activation_qr_code: 5 });
  });
});
