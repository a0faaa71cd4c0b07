// The turn's read snapshot on SQLite (src/db/read-snapshot.ts): the hot reads of one event-loop
// turn share one read transaction on the reader connection, a write of ours ends it, and its end
// never takes the process down. A second connection to the same file stands for another process.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { readSnapshotOf } from "../../src/db/read-snapshot";
import { queuedWrite, withTransaction } from "../../src/db/transaction";
import { createLogger } from "../../src/lib/logger";
import { findBook } from "../../src/repositories/books";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { onlyIn } from "../helpers/requires";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe.if(onlyIn(testDialect === "sqlite", "SQLite read snapshots: run without TEST_DATABASE_URL"))(
  "the read snapshot of a turn (SQLite)",
  () => {
    let database: TestDatabase;
    let connection: SqliteConnection;
    let other: SqliteConnection;
    let bookId: number;

    beforeAll(async () => {
      database = await createTestDatabase();
      const { db } = database.handle;
      connection = (db.orm as unknown as { $client: SqliteConnection }).$client;
      other = new SqliteConnection(database.url.replace(/^sqlite:/, ""));
      other.exec("PRAGMA busy_timeout = 1000");
      const now = new Date();
      const [book] = await queuedWrite(db, (tx) =>
        tx.orm
          .insert(db.tables.book)
          .values({ title: "First title", createdAt: now, updatedAt: now })
          .returning(),
      );
      bookId = book!.id;
      await nextTurn();
    });
    afterAll(async () => {
      other.close();
      await database.drop();
    });

    const titleSeenByAnotherProcess = (id: number) =>
      (other.query("SELECT title FROM book WHERE id = ?1").get(id) as { title: string } | null)?.title;
    const insertBookElsewhere = (title: string) =>
      Number(
        other.query("INSERT INTO book (title, created_at, updated_at) VALUES (?1, 0, 0)").run(title)
          .lastInsertRowid,
      );

    test("the hot reads of one turn share one read transaction, ended when the turn is over", async () => {
      const { db } = database.handle;
      expect(connection.inTransaction).toBe(false);
      expect((await findBook(db, bookId))?.title).toBe("First title");
      expect(connection.inTransaction).toBe(true);
      expect((await findBook(db, bookId))?.title).toBe("First title");
      await nextTurn();
      expect(connection.inTransaction).toBe(false);
    });

    test("reads see another process's write from the next turn on, not later", async () => {
      const { db } = database.handle;
      await findBook(db, bookId); // the turn's snapshot begins here
      const id = insertBookElsewhere("Written elsewhere");
      expect(await findBook(db, id)).toBeUndefined();
      await nextTurn();
      expect((await findBook(db, id))?.title).toBe("Written elsewhere");
      await nextTurn();
    });

    test("a write transaction begun while a snapshot is open is committed when it ends, not with the turn", async () => {
      const { db } = database.handle;
      await findBook(db, bookId);
      await withTransaction(db, async (tx) => {
        await tx.orm.update(tx.tables.book).set({ title: "Renamed in a transaction" });
      });
      // Still the same turn: another process already sees the write, and so do this turn's reads.
      expect(titleSeenByAnotherProcess(bookId)).toBe("Renamed in a transaction");
      expect((await findBook(db, bookId))?.title).toBe("Renamed in a transaction");
      await nextTurn();
    });

    test("a single write ends the snapshot when it commits: the same turn reads it", async () => {
      const { db } = database.handle;
      await findBook(db, bookId);
      expect(connection.inTransaction).toBe(true);
      await queuedWrite(db, (tx) => tx.orm.update(tx.tables.book).set({ title: "Renamed on its own" }));
      expect(connection.inTransaction).toBe(false);
      expect(titleSeenByAnotherProcess(bookId)).toBe("Renamed on its own");
      expect((await findBook(db, bookId))?.title).toBe("Renamed on its own");
      await nextTurn();
    });

    test("inside a write transaction its own handle reads its writes; the snapshot does not", async () => {
      const { db } = database.handle;
      await findBook(db, bookId);
      await withTransaction(db, async (tx) => {
        await tx.orm.update(tx.tables.book).set({ title: "Not yet committed" });
        expect((await findBook(tx, bookId))?.title).toBe("Not yet committed");
        expect((await findBook(db, bookId))?.title).toBe("Renamed on its own");
      });
      expect((await findBook(db, bookId))?.title).toBe("Not yet committed");
      await nextTurn();
      expect(connection.inTransaction).toBe(false);
    });

    test("the ping still finds out that another process holds the write lock", async () => {
      const { db } = database.handle;
      await findBook(db, bookId);
      other.exec("BEGIN IMMEDIATE");
      try {
        await expect(database.handle.ping()).rejects.toThrow();
      } finally {
        other.exec("ROLLBACK");
      }
      await findBook(db, bookId);
      await database.handle.ping();
      await nextTurn();
    });

    test("a snapshot open when a write commits does not pin the WAL: it starts over, not grows", async () => {
      const { db } = database.handle;
      const walBytes = () => statSync(`${database.url.replace(/^sqlite:/, "")}-wal`).size;
      // Each turn reads (the snapshot begins) and then writes, as a redemption does. Were the
      // snapshot still open at COMMIT, the checkpoint that COMMIT runs every ~1,000 pages could never
      // start the WAL over: 3,000 commits of a page or two each would leave it well past 10 MB.
      for (let i = 0; i < 3000; i++) {
        await findBook(db, bookId);
        await queuedWrite(db, (tx) => tx.orm.update(tx.tables.book).set({ title: `Title ${i}` }));
      }
      expect(walBytes()).toBeLessThan(8 * 1024 * 1024);
      await nextTurn();
    });

    test("every SQLite handle has its snapshot", () => {
      expect(readSnapshotOf(database.handle.db)).toBeDefined();
    });
  },
);

describe.if(onlyIn(testDialect === "sqlite", "SQLite read snapshots: run without TEST_DATABASE_URL"))(
  "the end of a turn's snapshot (SQLite)",
  () => {
    test("a snapshot that cannot be ended is logged, and the process goes on", async () => {
      const lines: string[] = [];
      const database = await createTestDatabase({
        logger: createLogger("error", (line) => lines.push(line)),
      });
      try {
        const { db } = database.handle;
        const [book] = await withTransaction(db, (tx) =>
          tx.orm
            .insert(db.tables.book)
            .values({ title: "Kept", createdAt: new Date(), updatedAt: new Date() })
            .returning(),
        );
        await findBook(db, book!.id); // the turn's snapshot begins
        // Its connection closed under it: the COMMIT at the end of the turn throws. It used to
        // throw from a setImmediate, where nothing catches it and the process ends.
        (db.orm as unknown as { $client: SqliteConnection }).$client.close();
        await nextTurn();
        await nextTurn();
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0]!)).toMatchObject({
          level: "error",
          msg: "the read snapshot could not be ended",
        });
        // The writer still answers: the door does not depend on the reader.
        await queuedWrite(db, (tx) => tx.orm.update(tx.tables.book).set({ title: "Still written" }));
      } finally {
        await database.drop().catch(() => {});
      }
    });
  },
);

describe.if(onlyIn(testDialect === "postgres", "Postgres read snapshots: run with TEST_DATABASE_URL"))(
  "the read snapshot of a turn (Postgres)",
  () => {
    test("there is none: each statement runs on a pooled connection of its own", async () => {
      const database = await createTestDatabase();
      try {
        expect(readSnapshotOf(database.handle.db)).toBeUndefined();
      } finally {
        await database.drop();
      }
    });
  },
);
