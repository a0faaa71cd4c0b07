// The one door for SQLite writes (src/db/transaction.ts): the handle everyone holds cannot write,
// reads never see a transaction's uncommitted rows, and no transaction outlives the event-loop
// turn it began in. That every write path of the app goes through the door is shown by the route
// and service tests: a stray write there fails (SQLITE_READONLY) and its request answers 500.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Database } from "#db";
import { openDatabase } from "../../src/db/client";
import { queuedWrite, TransactionOutlivedTurnError, withTransaction } from "../../src/db/transaction";
import { createLogger } from "../../src/lib/logger";
import { findBook } from "../../src/repositories/books";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { onlyIn } from "../helpers/requires";

const newBook = (title: string) => {
  const now = new Date();
  return { title, createdAt: now, updatedAt: now };
};
const insertBook = async (tx: Database, title: string) => {
  const [book] = await tx.orm.insert(tx.tables.book).values(newBook(title)).returning();
  return book!;
};
const booksTitled = (db: Database, title: string) =>
  db.orm.select().from(db.tables.book).where(eq(db.tables.book.title, title));

describe(`the write door (${testDialect})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  test("reads never see a transaction's uncommitted rows, and after its rollback they never existed", async () => {
    const { db } = database.handle;
    let inserted!: (id: number) => void;
    const insertedId = new Promise<number>((resolve) => {
      inserted = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const failing = withTransaction(db, async (tx) => {
      inserted((await insertBook(tx, "Uncommitted")).id);
      await released;
      throw new Error("rolled back");
    });
    const id = await insertedId;
    // Another request, in a later turn, while the transaction is still open: the hot read (in the
    // turn's snapshot) and a plain query both look for the row.
    let seen: unknown[];
    try {
      await Bun.sleep(5);
      seen = [await findBook(db, id), ...(await booksTitled(db, "Uncommitted"))];
    } finally {
      release();
    }
    await expect(failing).rejects.toThrow();
    expect(seen).toEqual([undefined]);
    expect(await findBook(db, id)).toBeUndefined();
    expect(await booksTitled(db, "Uncommitted")).toHaveLength(0);
  });

  test("a write made in one turn is read in the same turn, through the door and after it", async () => {
    const { db } = database.handle;
    const [before] = await booksTitled(db, "Nothing yet");
    expect(before).toBeUndefined();
    const book = await queuedWrite(db, (tx) => insertBook(tx, "Read at once"));
    expect((await findBook(db, book.id))?.title).toBe("Read at once");
    await withTransaction(db, async (tx) => {
      await tx.orm.update(tx.tables.book).set({ title: "Renamed" }).where(eq(tx.tables.book.id, book.id));
      // Inside, the transaction's own handle reads its writes.
      expect((await findBook(tx, book.id))?.title).toBe("Renamed");
    });
    expect((await findBook(db, book.id))?.title).toBe("Renamed");
  });

  test("in test mode a transaction that awaits a timer fails, and nothing of it is kept", async () => {
    const { db } = database.handle;
    const overlong = withTransaction(db, async (tx) => {
      await insertBook(tx, "Waited for a timer");
      await Bun.sleep(1);
      return "done";
    });
    if (testDialect === "sqlite") {
      await expect(overlong).rejects.toBeInstanceOf(TransactionOutlivedTurnError);
      expect(await booksTitled(db, "Waited for a timer")).toHaveLength(0);
      // The door is open again for the next write.
      await queuedWrite(db, (tx) => insertBook(tx, "After the failed one"));
      expect(await booksTitled(db, "After the failed one")).toHaveLength(1);
    } else {
      // Postgres transactions hold a pooled connection of their own: nothing else runs in them.
      expect(await overlong).toBe("done");
    }
  });
});

describe.if(onlyIn(testDialect === "sqlite", "the SQLite write door: runs without TEST_DATABASE_URL"))(
  "the write door (SQLite only)",
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(() => database.drop());

    test("a write made with the plain handle fails", async () => {
      const { db } = database.handle;
      await expect(Promise.resolve(db.orm.insert(db.tables.book).values(newBook("Stray")))).rejects.toThrow(
        /readonly/,
      );
      expect(await booksTitled(db, "Stray")).toHaveLength(0);
    });

    test("a transaction's handle kept after its transaction ended writes no more", async () => {
      const { db } = database.handle;
      const kept = await withTransaction(db, async (tx) => tx);
      await expect(
        Promise.resolve(kept.orm.insert(kept.tables.book).values(newBook("Late"))),
      ).rejects.toThrow(/outside withTransaction/);
      expect(await booksTitled(db, "Late")).toHaveLength(0);
    });

    test("in production a transaction that outlives its turn logs one line without SQL and commits", async () => {
      const dir = mkdtempSync(join(tmpdir(), "bookdist-door-"));
      const lines: string[] = [];
      const handle = await openDatabase(`sqlite:${join(dir, "db.sqlite")}`, {
        migrate: true,
        logger: createLogger("info", (line) => lines.push(line)),
      });
      try {
        const { db } = handle;
        await withTransaction(db, async (tx) => {
          await insertBook(tx, "Slow but kept");
          await Bun.sleep(1);
        });
        expect(await booksTitled(db, "Slow but kept")).toHaveLength(1);
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", alarm: "transaction" });
        expect(lines[0]).not.toMatch(/insert|book/i);
      } finally {
        await handle.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    test("an in-memory database is refused: its reader would be another database", async () => {
      await expect(openDatabase("sqlite::memory:")).rejects.toThrow(/not :memory:/);
    });
  },
);
