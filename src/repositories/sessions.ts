import { and, desc, eq, lte, ne, notInArray, or, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { queuedWrite } from "../db/transaction";
import { sessionIdHash } from "../lib/session-id";

export type SessionRow = Database["tables"]["userSession"]["$inferSelect"];
export type NewSession = Database["tables"]["userSession"]["$inferInsert"];

// Session writes go through queuedWrite, the door (db/transaction.ts): a transaction of their own
// outside any other request's, whose rollback could otherwise lose a new session or undo a logout.

/** Sessions a user may hold at once: a new one ends the oldest beyond this many. */
const MAX_SESSIONS_PER_USER = 100;

/**
 * Stores a new session under the digest of `session.id` (the id its token carries; only the
 * digest is stored, lib/session-id.ts) and ends the user's oldest sessions beyond
 * MAX_SESSIONS_PER_USER, in one transaction: however many logins a script makes, the table holds
 * at most that many rows per user.
 */
export async function insertSession(db: Database, tokenSession: NewSession): Promise<void> {
  const session = { ...tokenSession, id: sessionIdHash(tokenSession.id) };
  // A login waits for another process's SQLite lock (in the transaction queue's BEGIN), not failing at once.
  await queuedWrite(db, async (tx) => {
    const { userSession } = db.tables;
    await tx.orm.insert(userSession).values(session);
    const newest = await tx.orm
      .select({ id: userSession.id })
      .from(userSession)
      .where(and(eq(userSession.userUuid, session.userUuid), ne(userSession.id, session.id)))
      .orderBy(desc(userSession.createdAt), desc(userSession.id))
      .limit(MAX_SESSIONS_PER_USER - 1);
    await tx.orm
      .delete(userSession)
      .where(
        and(
          eq(userSession.userUuid, session.userUuid),
          notInArray(userSession.id, [session.id, ...newest.map((row) => row.id)]),
        ),
      );
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

/** The session a token's `sid` names: looked up by the id's digest, the only form stored. */
export async function findSession(db: Database, tokenSessionId: string): Promise<SessionRow | undefined> {
  const rows = await rowsOf(db, findSessionStatement(db), { id: sessionIdHash(tokenSessionId) });
  return rows[0];
}

/** Ends the session a token's `sid` names (a logout). */
export function deleteSession(db: Database, tokenSessionId: string): Promise<number> {
  return deleteSessionRow(db, sessionIdHash(tokenSessionId));
}

/** Ends the session whose row has `id` (a digest: a SessionRow's own id). */
export async function deleteSessionRow(db: Database, id: string): Promise<number> {
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

/** Records a re-check of the account: its admin flag now, and the use that prompted it (`id`: the row's). */
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

/** A user's sessions, newest first (at most MAX_SESSIONS_PER_USER exist; index user_session_user_idx). */
export function sessionsOfUser(db: Database, userUuid: string): Promise<SessionRow[]> {
  const { userSession } = db.tables;
  return db.orm
    .select()
    .from(userSession)
    .where(eq(userSession.userUuid, userUuid))
    .orderBy(desc(userSession.lastSeenAt))
    .limit(MAX_SESSIONS_PER_USER);
}
