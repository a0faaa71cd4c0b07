// The SQLite writer worker (db/writer-worker.ts), as the server runs it: a print run's transaction
// runs on the worker while the event loop goes on (the lock is seen held from the loop, which the
// old one-turn transaction never let happen), all or none, its errors as the driver gave them; and
// the worker's checkpoints keep the WAL file bounded under a long stream of print runs and under
// a redemption load, with SQLite's own checkpoint on COMMIT switched off.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { count, eq } from "drizzle-orm";
import type { Database } from "#db";
import { sqlitePathFromUrl } from "../../src/db/client";
import { isUniqueViolation } from "../../src/db/errors";
import { offLoopTransaction, withTransaction } from "../../src/db/transaction";
import { WalIndex } from "../../src/db/wal-index";
import { RESTART_BYTES, WAL_BOUND_BYTES } from "../../src/db/writer-worker";
import { insertActivation } from "../../src/repositories/activations";
import { insertBook } from "../../src/repositories/books";
import { findQrCodeBatch } from "../../src/repositories/qr-code-batches";
import { consumeActivation, insertQrCodes } from "../../src/repositories/qr-codes";
import { systemSource } from "../../src/services/audit";
import { writePrintRun } from "../../src/services/print-run-write";
import { createQrCodeBatch } from "../../src/services/qr-codes";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { onlyIn } from "../helpers/requires";

const printRunModule = new URL("../../src/services/print-run-write.ts", import.meta.url).href;

describe.if(onlyIn(testDialect === "sqlite", "the writer worker is SQLite's"))(
  `the SQLite writer worker (${testDialect})`,
  () => {
    let database: TestDatabase;
    let db: Database;
    let path: string;
    let bookId: number;
    beforeAll(async () => {
      database = await createTestDatabase({ checkpoints: "worker" });
      db = database.handle.db;
      path = sqlitePathFromUrl(database.url);
      const now = new Date();
      bookId = (
        await insertBook(
          db,
          { title: "Worker", author: null, isbn: null, description: null, language: null },
          now,
        )
      ).id;
    });
    afterAll(() => database.drop());

    const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const run = (quantity: number) =>
      createQrCodeBatch(
        db,
        systemSource,
        { bookId, quantity, maxActivations: 5, label: "run", expiresAt: null },
        new Date(),
      );

    test("a print run is made while the event loop turns, and is seen whole once it returns", async () => {
      // Another connection asks for the write lock every turn: it finds it held only if the loop
      // turned while the run's transaction was open.
      const other = new SqliteConnection(path);
      let heldWhileTurning = 0;
      let done = false;
      const made = run(10_000).finally(() => {
        done = true;
      });
      while (!done) {
        try {
          other.exec("BEGIN IMMEDIATE");
          other.exec("ROLLBACK");
        } catch (error) {
          if (String((error as { code?: string }).code).startsWith("SQLITE_BUSY")) heldWhileTurning++;
          else throw error;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      other.close();
      const rows = await made;
      expect(heldWhileTurning).toBeGreaterThan(0);
      expect(rows).toHaveLength(10_000);
      expect(rows[0]!.createdAt).toBeInstanceOf(Date);
      expect(await findQrCodeBatch(db, rows[0]!.batchId!)).toMatchObject({ codes: 10_000, redeemed: 0 });
      // The reader sees it at once, and a redemption takes from it.
      expect(await consumeActivation(db, rows[1]!.id, new Date())).toBe(true);
    });

    test("a run that fails leaves nothing, and its error is the driver's", async () => {
      const [taken] = await insertQrCodes(
        db,
        [
          {
            bookId,
            batchId: null,
            code: "TAKEN-0001",
            enabled: true,
            maxActivations: 1,
            label: null,
            expiresAt: null,
          },
        ],
        new Date(),
      );
      const { qrCodeBatch, activationQrCode: q } = db.tables;
      const batchesBefore = (await db.orm.select({ n: count() }).from(qrCodeBatch))[0]!.n;
      const failing = offLoopTransaction(
        db,
        printRunModule,
        writePrintRun,
        systemSource,
        { bookId, label: "clash", maxActivations: 1, expiresAt: null },
        [...Array.from({ length: 700 }, (_, i) => `FRESH-${i}`), taken!.code],
        new Date(),
      );
      const error = await failing.catch((e: unknown) => e);
      expect(isUniqueViolation(error)).toBe(true);
      expect((await db.orm.select({ n: count() }).from(qrCodeBatch))[0]!.n).toBe(batchesBefore);
      expect(await db.orm.select().from(q).where(eq(q.code, "FRESH-1"))).toEqual([]);
      // The door goes on: the next write runs.
      await withTransaction(db, async (tx) => consumeActivation(tx, taken!.id, new Date()));
    });

    test("the WAL stays bounded under a long stream of print runs", async () => {
      let largest = 0;
      // Each run writes MiBs of pages: in all, more than the bound.
      for (let i = 0; i < 16; i++) {
        await run(10_000);
        largest = Math.max(largest, walBytes());
      }
      expect(largest).toBeLessThanOrEqual(WAL_BOUND_BYTES);
    }, 120_000);
  },
);

// Its own database and worker: the WAL it starts with is the load's alone.
describe.if(onlyIn(testDialect === "sqlite", "the writer worker is SQLite's"))(
  `the SQLite writer worker under a redemption load (${testDialect})`,
  () => {
    let database: TestDatabase;
    let db: Database;
    let path: string;
    let bookId: number;
    beforeAll(async () => {
      database = await createTestDatabase({ checkpoints: "worker" });
      db = database.handle.db;
      path = sqlitePathFromUrl(database.url);
      const book = { title: "Load", author: null, isbn: null, description: null, language: null };
      bookId = (await insertBook(db, book, new Date())).id;
    });
    // What the WAL holds, read from its index: closed after the database's connections (wal-index.ts).
    let index: WalIndex | undefined;
    afterAll(async () => {
      await database.drop();
      index?.close();
    });
    const walBytes = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    const run = (quantity: number) =>
      createQrCodeBatch(
        db,
        systemSource,
        { bookId, quantity, maxActivations: 5, label: "run", expiresAt: null },
        new Date(),
      );

    test("the WAL stays bounded under a redemption load, and is started over at RESTART_BYTES", async () => {
      const rows = await run(6_000);
      index = new WalIndex(`${path}-shm`);
      let largest = 0;
      let largestHeld = 0;
      for (let i = 0; i < rows.length; i++) {
        const now = new Date();
        await withTransaction(db, async (tx) => {
          await consumeActivation(tx, rows[i]!.id, now);
          await insertActivation(tx, { bookId, userUuid: crypto.randomUUID(), qrCodeId: rows[i]!.id }, now);
        });
        // After every one: the bound holds at each moment, not only on average.
        largest = Math.max(largest, walBytes());
        largestHeld = Math.max(largestHeld, index.bytes());
        // Each redemption in a turn of its own, as requests arrive.
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(largest).toBeLessThanOrEqual(WAL_BOUND_BYTES);
      // What the WAL holds, not its file (which keeps its size when started over): a few of the
      // load's transactions past the threshold at most, the door's back-pressure.
      expect(largestHeld).toBeGreaterThan(RESTART_BYTES / 2);
      expect(largestHeld).toBeLessThanOrEqual(2 * RESTART_BYTES);
    }, 120_000);
  },
);
