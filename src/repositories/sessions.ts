import { eq, lte, or, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { queuedWrite } from "../db/transaction";

export type SessionRow = Database["tables"]["userSession"]["$inferSelect"];
export type NewSession = Database["tables"]["userSession"]["$inferInsert"];

// Session writes go through queuedWrite, the door (db/transaction.ts): a transaction of their own
// outside any other request's, whose rollback could otherwise lose a new session or undo a logout.

export async function insertSession(db: Database, session: NewSession): Promise<void> {
  // A login waits for another process's SQLite lock (in the transaction queue's BEGIN), not failing at once.
  await queuedWrite(db, async (tx) => {
    await tx.orm.insert(db.tables.userSession).values(session);
  });
}

// Every authenticated request looks its session up: prepared, so the SQL is built only once.
const findSessionStatement = preparedPer((db) => {
  const { userSession } = db.tables;
  const query = db.orm
    .select()
    .from(userSession)
    // No `.limit(1)` on a key lookup: Drizzle binds the limit as a parameter, and a bound LIMIT
    // makes SQLite re-prepare the statement on every run (~3 µs of the ~5 µs it costs).
    .where(eq(userSession.id, sql.placeholder("id")));
  return prepareRows(query, "find_session", userSession);
});

export async function findSession(db: Database, id: string): Promise<SessionRow | undefined> {
  const rows = await rowsOf(db, findSessionStatement(db), { id });
  return rows[0];
}

export async function deleteSession(db: Database, id: string): Promise<number> {
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(db.tables.userSession)
      .where(eq(db.tables.userSession.id, id))
      .returning({ id: db.tables.userSession.id }),
  );
  return rows.length;
}

export async function deleteSessionsOfUser(db: Database, userUuid: string): Promise<number> {
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(db.tables.userSession)
      .where(eq(db.tables.userSession.userUuid, userUuid))
      .returning({ id: db.tables.userSession.id }),
  );
  return rows.length;
}

/** Sessions past their absolute lifetime, or idle since `idleBefore`. */
export async function deleteEndedSessions(db: Database, now: Date, idleBefore: Date): Promise<number> {
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(db.tables.userSession)
      .where(or(lte(db.tables.userSession.expiresAt, now), lte(db.tables.userSession.lastSeenAt, idleBefore)))
      .returning({ id: db.tables.userSession.id }),
  );
  return rows.length;
}

/** Records a re-check of the account: its admin flag now, and the use that prompted it. */
export async function markSessionChecked(
  db: Database,
  id: string,
  at: Date,
  isAdmin: boolean,
): Promise<void> {
  await queuedWrite(db, (tx) => {
    const { userSession } = db.tables;
    return tx.orm
      .update(userSession)
      .set({ isAdmin, checkedAt: at, lastSeenAt: at })
      .where(eq(userSession.id, id));
  });
}

/** Makes the next request of each of the user's sessions re-read the account (a grant changed). */
export async function expireSessionChecks(db: Database, userUuid: string): Promise<void> {
  await queuedWrite(db, (tx) => {
    const { userSession } = db.tables;
    return tx.orm
      .update(userSession)
      .set({ checkedAt: new Date(0) })
      .where(eq(userSession.userUuid, userUuid));
  });
}
