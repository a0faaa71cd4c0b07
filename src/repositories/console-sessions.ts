// Console sessions (README "Console"): rows keyed by the SHA-256 of the browser's cookie value, the
// only form stored (a copy of the database opens no console). Writes go through queuedWrite, the
// door (db/transaction.ts), like user_session's.
import { eq, lte, or, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { queuedWrite } from "../db/transaction";

export type ConsoleSessionRow = Database["tables"]["consoleSession"]["$inferSelect"];
export type NewConsoleSession = Database["tables"]["consoleSession"]["$inferInsert"];

export async function insertConsoleSession(db: Database, row: NewConsoleSession): Promise<void> {
  await queuedWrite(db, (tx) => tx.orm.insert(db.tables.consoleSession).values(row));
}

// Every console page looks its session up: prepared once.
const findStatement = preparedPer((db) => {
  const { consoleSession } = db.tables;
  const query = db.orm
    .select()
    .from(consoleSession)
    .where(eq(consoleSession.id, sql.placeholder("id")));
  return prepareRows(query, "find_console_session", consoleSession);
});

/** The row whose id (a digest) is `id`. */
export async function findConsoleSession(db: Database, id: string): Promise<ConsoleSessionRow | undefined> {
  const rows = await rowsOf(db, findStatement(db), { id });
  return rows[0];
}

export async function deleteConsoleSession(db: Database, id: string): Promise<number> {
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(db.tables.consoleSession)
      .where(eq(db.tables.consoleSession.id, id))
      .returning({ id: db.tables.consoleSession.id }),
  );
  return rows.length;
}

/** Records a re-check of the account and the use that prompted it. */
export async function markConsoleSessionChecked(
  db: Database,
  id: string,
  at: Date,
  isAdmin: boolean,
): Promise<void> {
  await queuedWrite(db, (tx) =>
    tx.orm
      .update(db.tables.consoleSession)
      .set({ isAdmin, checkedAt: at, lastSeenAt: at })
      .where(eq(db.tables.consoleSession.id, id)),
  );
}

/** Sessions past their absolute lifetime, or idle since `idleBefore` (the cleanup job). */
export async function deleteEndedConsoleSessions(db: Database, now: Date, idleBefore: Date): Promise<number> {
  const { consoleSession } = db.tables;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(consoleSession)
      .where(or(lte(consoleSession.expiresAt, now), lte(consoleSession.lastSeenAt, idleBefore)))
      .returning({ id: consoleSession.id }),
  );
  return rows.length;
}
