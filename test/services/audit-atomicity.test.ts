// A change and its audit event commit or roll back together (README "Audit log"), on the
// database of this run (SQLite, or Postgres with TEST_DATABASE_URL): a refused change (409, a
// constraint) leaves no event; a failure injected at the event's insert, or after it within the
// transaction, leaves neither the change nor the event; and after all of it, among many changes
// made at once, every event has its change and every change its event.
import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queuedWrite } from "../../src/db/transaction";
import { countBooks, listBooks } from "../../src/repositories/books";
import { type AuditSource, countAuditEvents, listAuditEvents, systemSource } from "../../src/services/audit";
import { createBookVersion } from "../../src/services/book-versions";
import { createBook, removeBook } from "../../src/services/books";
import { createTestDatabase, testDialect } from "../helpers/databases";

const database = await createTestDatabase();
const db = database.handle.db;
afterAll(() => database.drop());

const by: AuditSource = { ...systemSource, requestId: "atomicity-test", client: "127.0.0.1" };
const now = new Date("2026-11-28T10:00:00.000Z");
const fields = (title: string) => ({ title, author: null, isbn: null, description: null, language: null });

/** DDL through the door (SQLite) or on the pool (Postgres). */
async function run(statement: string): Promise<void> {
  await queuedWrite(db, async (tx) => {
    const orm = tx.orm as unknown as { run(q: unknown): unknown; execute(q: unknown): Promise<unknown> };
    if (testDialect === "sqlite") orm.run(sql.raw(statement));
    else await orm.execute(sql.raw(statement));
  });
}

/**
 * A trigger on audit_event that fails the statement (`timing`: BEFORE the event's row is
 * written, or AFTER it) when the event's changes hold `marker`: the injected crash.
 */
async function injectFailure(timing: "BEFORE" | "AFTER", marker: string): Promise<() => Promise<void>> {
  const name = `audit_fail_${timing.toLowerCase()}`;
  if (testDialect === "sqlite") {
    await run(
      `CREATE TRIGGER ${name} ${timing} INSERT ON audit_event WHEN NEW.changes LIKE '%${marker}%' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`,
    );
    return () => run(`DROP TRIGGER ${name}`);
  }
  await run(
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.changes LIKE '%${marker}%' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`,
  );
  await run(`CREATE TRIGGER ${name} ${timing} INSERT ON audit_event FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return async () => {
    await run(`DROP TRIGGER ${name} ON audit_event`);
    await run(`DROP FUNCTION ${name}()`);
  };
}

async function titles(): Promise<string[]> {
  return (await listBooks(db, { sort: [] })).map((book) => book.title);
}

async function allEvents() {
  const read = await listAuditEvents(db, { sort: [] });
  if (!("rows" in read)) throw new Error("more events than one chunk");
  return read.rows;
}

describe(`audit events and their changes are one transaction (${testDialect})`, () => {
  test("a refused change leaves no event: a duplicate (409) and a held book (409)", async () => {
    const book = await createBook(db, by, fields("Refusals"), now);
    await createBookVersion(
      db,
      by,
      { bookId: book.id, versionCode: 1, versionName: "1", releaseNotes: null },
      now,
    );
    const before = await countAuditEvents(db);
    await expect(
      createBookVersion(
        db,
        by,
        { bookId: book.id, versionCode: 1, versionName: "again", releaseNotes: null },
        now,
      ),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(removeBook(db, by, 999_999, now)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await countAuditEvents(db)).toBe(before);
  });

  for (const timing of ["BEFORE", "AFTER"] as const) {
    test(`a failure ${timing === "BEFORE" ? "at the event's insert" : "after the event is written"} takes the change back too`, async () => {
      const restore = await injectFailure(timing, `Doomed ${timing}`);
      try {
        const [books, events] = [await countBooks(db), await countAuditEvents(db)];
        await expect(createBook(db, by, fields(`Doomed ${timing}`), now)).rejects.toThrow();
        expect(await countBooks(db)).toBe(books);
        expect(await countAuditEvents(db)).toBe(events);
        expect(await titles()).not.toContain(`Doomed ${timing}`);
        // The next change, unharmed, commits with its event.
        await createBook(db, by, fields(`Kept ${timing}`), now);
        expect(await countBooks(db)).toBe(books + 1);
        expect(await countAuditEvents(db)).toBe(events + 1);
      } finally {
        await restore();
      }
    });
  }

  test("many changes at once, some failing: every event has its change, every change its event", async () => {
    const restore = await injectFailure("AFTER", "Racing doomed");
    try {
      const results = await Promise.allSettled(
        Array.from({ length: 30 }, (_, i) =>
          createBook(db, by, fields(i % 3 === 0 ? `Racing doomed ${i}` : `Racing kept ${i}`), now),
        ),
      );
      expect(results.filter((r) => r.status === "rejected").length).toBe(10);
    } finally {
      await restore();
    }
    const books = await listBooks(db, { sort: [] });
    const events = await allEvents();
    const created = events.filter((e) => e.action === "book.create").map((e) => Number(e.targetId));
    const deleted = new Set(events.filter((e) => e.action === "book.delete").map((e) => Number(e.targetId)));
    // Every book has its creation event; every creation event names a book that exists or was deleted.
    expect(books.map((b) => b.id).filter((id) => !created.includes(id))).toEqual([]);
    const bookIds = new Set(books.map((b) => b.id));
    expect(created.filter((id) => !bookIds.has(id) && !deleted.has(id))).toEqual([]);
    expect(books.filter((b) => b.title.startsWith("Racing doomed"))).toEqual([]);
    expect(events.filter((e) => e.changes.includes("Racing doomed"))).toEqual([]);
    expect(books.filter((b) => b.title.startsWith("Racing kept")).length).toBe(20);
  });
});
