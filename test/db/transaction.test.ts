import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import { withTransaction } from "../../src/db/transaction";
import { deleteSession, findSession, insertSession } from "../../src/repositories/sessions";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";

describe(`withTransaction (${testDialect})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const bookCount = async () => {
    const { db } = database.handle;
    const [row] = await db.orm.select({ n: count() }).from(db.tables.book);
    return Number(row?.n);
  };
  const insertBook = (db: TestDatabase["handle"]["db"], title: string) => {
    const now = new Date();
    return db.orm.insert(db.tables.book).values({ title, createdAt: now, updatedAt: now }).returning();
  };

  test("commits when the work succeeds", async () => {
    const before = await bookCount();
    await withTransaction(database.handle.db, async (tx) => {
      await insertBook(tx, "one");
      await insertBook(tx, "two");
    });
    expect(await bookCount()).toBe(before + 2);
  });

  test("rolls back every row when async work throws", async () => {
    const before = await bookCount();
    const failing = withTransaction(database.handle.db, async (tx) => {
      await insertBook(tx, "kept?");
      // Async, but within the turn: a transaction that awaits a timer fails anyway (write-door.test.ts).
      await Promise.resolve();
      await insertBook(tx, "kept too?");
      throw new Error("boom");
    });
    await expect(failing).rejects.toThrow("boom");
    expect(await bookCount()).toBe(before);
  });

  test("a failing statement inside rolls back the earlier ones", async () => {
    const before = await bookCount();
    const { db } = database.handle;
    const failing = withTransaction(db, async (tx) => {
      const [book] = await insertBook(tx, "with version");
      const now = new Date();
      const version = { bookId: book!.id, versionCode: 1, versionName: "1", createdAt: now, updatedAt: now };
      await tx.orm.insert(tx.tables.bookVersion).values(version);
      await tx.orm.insert(tx.tables.bookVersion).values(version); // unique (book_id, version_code)
    });
    await expect(failing).rejects.toThrow();
    expect(await bookCount()).toBe(before);
  });

  test("a logout and a login made while another request's transaction is open survive its rollback", async () => {
    const { db } = database.handle;
    const now = new Date();
    const session = (id: string) => ({
      id,
      userUuid: crypto.randomUUID(),
      storeUserId: "1",
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + 60_000),
      userAgent: null,
      clientAddress: null,
      isAdmin: false,
      passwordStamp: "stamp",
      checkedAt: now,
    });
    const loggedOut = crypto.randomUUID();
    const loggedIn = crypto.randomUUID();
    await insertSession(db, session(loggedOut));
    let reachedGate!: () => void;
    const inside = new Promise<void>((resolve) => {
      reachedGate = resolve;
    });
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    // Another request's transaction (a redemption that will fail), open while the writes arrive.
    const failing = withTransaction(db, async (tx) => {
      await insertBook(tx, "rolled back");
      reachedGate();
      await gate;
      throw new Error("boom");
    });
    await inside;
    const logout = deleteSession(db, loggedOut);
    const login = insertSession(db, session(loggedIn));
    openGate();
    await expect(failing).rejects.toThrow("boom");
    expect(await logout).toBe(1);
    await login;
    // On SQLite's one connection, writes joined to the open transaction used to go with its rollback.
    expect(await findSession(db, loggedOut)).toBeUndefined();
    expect(await findSession(db, loggedIn)).toBeDefined();
  });

  test("concurrent transactions do not interfere", async () => {
    const before = await bookCount();
    const { db } = database.handle;
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        withTransaction(db, async (tx) => {
          await insertBook(tx, `parallel ${i}`);
          if (i % 2 === 1) throw new Error("odd");
        }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(5);
    expect(await bookCount()).toBe(before + 5);
    const odd = await db.orm.select().from(db.tables.book).where(eq(db.tables.book.title, "parallel 1"));
    expect(odd).toHaveLength(0);
  });
});
