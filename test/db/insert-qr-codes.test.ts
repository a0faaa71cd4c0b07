// insertQrCodes writes full chunks through one prepared INSERT whose placeholders are bound by
// position, and the rest through an ordinary one: every code must come back, and be stored, with
// exactly the fields it was given, whichever path wrote it, on either database.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import { withTransaction } from "../../src/db/transaction";
import { insertBook } from "../../src/repositories/books";
import { insertQrCodeBatch } from "../../src/repositories/qr-code-batches";
import { insertQrCodes, type NewQrCode } from "../../src/repositories/qr-codes";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";

const now = new Date("2026-11-24T10:00:00.123Z");
const later = new Date("2027-01-31T23:59:59.999Z");

describe(`insertQrCodes (${testDialect})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  test("two full chunks and a remainder store and return every field as given", async () => {
    const { db } = database.handle;
    const book = await insertBook(
      db,
      { title: "Chunks", author: null, isbn: null, description: null, language: null },
      now,
    );
    const batch = await withTransaction(db, (tx) =>
      insertQrCodeBatch(tx, { bookId: book.id, label: "run", maxActivations: 3, expiresAt: later }, now),
    );
    // Every field varies from row to row, so a value bound to the wrong row or column shows.
    const codes: NewQrCode[] = Array.from({ length: 1_234 }, (_, i) => ({
      bookId: book.id,
      batchId: i % 3 === 0 ? null : batch.id,
      code: `CHUNK-${String(i).padStart(5, "0")}`,
      enabled: i % 2 === 0,
      maxActivations: 1 + (i % 7),
      label: i % 5 === 0 ? null : `label ${i}`,
      expiresAt: i % 4 === 0 ? null : new Date(later.getTime() + i),
    }));
    const returned = await withTransaction(db, (tx) => insertQrCodes(tx, codes, now));
    const expected = codes.map((code) => ({
      ...code,
      activationCount: 0,
      firstRedeemedAt: null,
      createdAt: now,
      updatedAt: now,
    }));
    expect(returned.map(({ id: _, ...row }) => row)).toEqual(expected);
    const { activationQrCode: q } = db.tables;
    const stored = await db.orm.select().from(q).where(eq(q.bookId, book.id)).orderBy(asc(q.id));
    expect(stored).toEqual(returned);
  });
});
