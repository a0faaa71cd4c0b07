// The counter rows behind each print run's counts (migration 0020; repositories/qr-code-batches.ts)
// stay exact: through the batch's inserts, redemptions and their release, codes and whole runs
// switched off and on, deletes of codes, of the batch and of its book, 40 writers at once on
// several Postgres connections, and the migration's backfill of runs made before the counters.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq, sql } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite } from "../../src/db/transaction";
import { deleteBook, insertBook } from "../../src/repositories/books";
import {
  findQrCodeBatch,
  insertQrCodeBatch,
  listQrCodeBatchesOfBook,
  setQrCodeBatchEnabled,
} from "../../src/repositories/qr-code-batches";
import {
  consumeActivation,
  insertQrCodes,
  type QrCodeRow,
  releaseActivation,
  setQrCodeEnabled,
} from "../../src/repositories/qr-codes";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { migrateUntil } from "../helpers/migrations-until";

const now = new Date("2026-12-02T10:00:00.000Z");

/** What the run's codes add up to, counted row by row: what the counters must answer. */
async function countedOf(db: Database, batchId: number) {
  const { activationQrCode: q } = db.tables;
  const [row] = await db.orm
    .select({
      codes: count(),
      redeemed: sql<number>`sum(case when ${q.activationCount} > 0 then 1 else 0 end)`,
      disabled: sql<number>`sum(case when ${q.enabled} then 0 else 1 end)`,
    })
    .from(q)
    .where(eq(q.batchId, batchId));
  const codes = Number(row?.codes ?? 0);
  const redeemed = Number(row?.redeemed ?? 0);
  return { codes, redeemed, unused: codes - redeemed, disabled: Number(row?.disabled ?? 0) };
}

/** The run's counts as the API answers them equal its codes' (by id and in its book's list). */
async function expectExact(db: Database, batchId: number) {
  const expected = await countedOf(db, batchId);
  const batch = await findQrCodeBatch(db, batchId);
  expect(batch).toMatchObject(expected);
  const listed = await listQrCodeBatchesOfBook(db, batch!.bookId, { sort: [] });
  expect(listed.find((b) => b.id === batchId)).toMatchObject(expected);
  return expected;
}

/** Counter rows of runs that no longer exist: none may stay behind. */
async function orphanCounterRows(db: Database): Promise<number> {
  const { qrCodeBatchCount: c, qrCodeBatch: b } = db.tables;
  const [row] = await db.orm
    .select({ n: count() })
    .from(c)
    .where(sql`not exists (select 1 from ${b} where ${b.id} = ${c.batchId})`);
  return Number(row?.n ?? 0);
}

async function newRun(db: Database, title: string, n: number) {
  const book = await insertBook(
    db,
    { title, author: null, isbn: null, description: null, language: null },
    now,
  );
  const batch = await insertQrCodeBatch(
    db,
    { bookId: book.id, label: title, maxActivations: 2, expiresAt: null },
    now,
  );
  const codes = await insertQrCodes(
    db,
    Array.from({ length: n }, (_, i) => ({
      bookId: book.id,
      batchId: batch.id,
      code: `${title}-${i}`,
      enabled: i % 10 !== 9,
      maxActivations: 2,
      label: null,
      expiresAt: null,
    })),
    now,
  );
  return { book, batch, codes };
}

describe(`print run counters (${testDialect})`, () => {
  let database: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = database.handle.db;
  });
  afterAll(() => database.drop());

  test("follow the run's codes: made, redeemed twice and released, switched, deleted", async () => {
    const { batch, codes } = await newRun(db, "Counted", 1_203);
    expect(await expectExact(db, batch.id)).toEqual({
      codes: 1_203,
      redeemed: 0,
      unused: 1_203,
      disabled: 120,
    });
    const [a, b, c] = codes as [QrCodeRow, QrCodeRow, QrCodeRow];
    // A code's second redemption leaves it redeemed once; giving both back makes it unused again.
    expect(await consumeActivation(db, a.id, now)).toBe(true);
    expect(await consumeActivation(db, a.id, now)).toBe(true);
    expect(await consumeActivation(db, b.id, now)).toBe(true);
    expect(await expectExact(db, batch.id)).toMatchObject({ redeemed: 2 });
    await releaseActivation(db, a.id, now);
    expect(await expectExact(db, batch.id)).toMatchObject({ redeemed: 2 });
    await releaseActivation(db, a.id, now);
    expect(await expectExact(db, batch.id)).toMatchObject({ redeemed: 1 });
    await setQrCodeEnabled(db, c.id, false, now);
    await setQrCodeEnabled(db, c.id, false, now);
    expect(await expectExact(db, batch.id)).toMatchObject({ disabled: 121 });
    expect(await setQrCodeBatchEnabled(db, batch.id, false, now)).toBe(1_203);
    expect(await expectExact(db, batch.id)).toMatchObject({ disabled: 1_203 });
    await setQrCodeBatchEnabled(db, batch.id, true, now);
    expect(await expectExact(db, batch.id)).toMatchObject({ disabled: 0 });
    const { activationQrCode: q } = db.tables;
    await queuedWrite(db, (tx) => tx.orm.delete(q).where(eq(q.id, b.id)));
    expect(await expectExact(db, batch.id)).toEqual({
      codes: 1_202,
      redeemed: 0,
      unused: 1_202,
      disabled: 0,
    });
    // A code taken out of the run by hand leaves its counts.
    await queuedWrite(db, (tx) => tx.orm.update(q).set({ batchId: null }).where(eq(q.id, c.id)));
    expect(await expectExact(db, batch.id)).toMatchObject({ codes: 1_201 });
  });

  test("a run's or its book's delete leaves no counter row behind", async () => {
    const one = await newRun(db, "Gone batch", 30);
    const two = await newRun(db, "Gone book", 30);
    await consumeActivation(db, two.codes[0]!.id, now);
    const { qrCodeBatch } = db.tables;
    await queuedWrite(db, (tx) => tx.orm.delete(qrCodeBatch).where(eq(qrCodeBatch.id, one.batch.id)));
    await deleteBook(db, two.book.id);
    expect(await findQrCodeBatch(db, one.batch.id)).toBeUndefined();
    expect(await orphanCounterRows(db)).toBe(0);
  });

  test("40 writers at once (redemptions, releases, switches, deletes) keep every count exact", async () => {
    const { batch, codes } = await newRun(db, "Busy", 400);
    const other = await newRun(db, "Busy too", 100);
    const { activationQrCode: q } = db.tables;
    await Promise.all(
      Array.from({ length: 40 }, async (_, writer) => {
        for (let step = 0; step < 10; step++) {
          const code = codes[(writer * 10 + step) % codes.length]!;
          const kind = (writer + step) % 5;
          if (kind === 0) await setQrCodeEnabled(db, code.id, step % 2 === 0, now);
          else if (kind === 1) await queuedWrite(db, (tx) => tx.orm.delete(q).where(eq(q.id, code.id)));
          else if (kind === 2)
            await releaseActivation(db, codes[(writer * 7 + step) % codes.length]!.id, now);
          else await consumeActivation(db, code.id, now);
          if (writer % 20 === 0 && step === 5)
            await setQrCodeBatchEnabled(db, other.batch.id, step % 2 === 0, now);
          await consumeActivation(db, other.codes[(writer + step) % other.codes.length]!.id, now);
        }
      }),
    );
    const counts = await expectExact(db, batch.id);
    expect(counts.codes).toBeLessThan(400);
    expect(counts.redeemed).toBeGreaterThan(0);
    await expectExact(db, other.batch.id);
    if (testDialect === "postgres") {
      // No hot row: the writers' connections added to slots of their own.
      const { qrCodeBatchCount: c } = db.tables;
      const slots = await db.orm.select({ slot: c.slot }).from(c).where(eq(c.batchId, other.batch.id));
      expect(slots.length).toBeGreaterThan(1);
    }
  });
});

describe(`migration 0020 backfills the counts of runs made before it (${testDialect})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.drop());

  test("each run's counts start at what its codes add up to", async () => {
    const { db } = database.handle;
    const old = await migrateUntil(database, "batch-counts");
    const { run } = old;
    const at = old.timestamp(now);
    const bool = old.boolean;
    await run(`INSERT INTO book (id, title, created_at, updated_at) VALUES (1, 'Old', ${at}, ${at})`);
    for (const id of [1, 2, 3]) {
      await run(
        `INSERT INTO qr_code_batch (id, book_id, max_activations, created_at) VALUES (${id}, 1, 1, ${at})`,
      );
    }
    for (let i = 0; i < 12; i++) {
      const batch = i < 10 ? (i % 2) + 1 : "NULL";
      await run(`INSERT INTO activation_qr_code (book_id, batch_id, code, enabled, max_activations, activation_count, created_at, updated_at)
                 VALUES (1, ${batch}, 'OLD-${i}', ${bool(i % 3 !== 0)}, 1, ${i % 4 === 0 ? 1 : 0}, ${at}, ${at})`);
    }

    await old.migrateToEnd();

    expect(await expectExact(db, 1)).toEqual({ codes: 5, redeemed: 3, unused: 2, disabled: 2 });
    expect(await expectExact(db, 2)).toEqual({ codes: 5, redeemed: 0, unused: 5, disabled: 2 });
    expect(await expectExact(db, 3)).toEqual({ codes: 0, redeemed: 0, unused: 0, disabled: 0 });
    // And it goes on counting from there.
    await setQrCodeBatchEnabled(db, 1, false, now);
    expect(await expectExact(db, 1)).toMatchObject({ disabled: 5 });
  });
});
