import { and, gt, inArray, lte, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { queuedWrite } from "../db/transaction";

export interface CountedEvent {
  key: string;
  count: number;
  windowEndsAt: Date;
}

/**
 * Counts one event against each key, each in its fixed window of `windowMs`; returns every key's
 * count and when its window ends. One statement, so concurrent requests on several instances
 * cannot lose a count nor both see the count from before the other's.
 */
export async function countEvents(
  db: Database,
  events: ReadonlyArray<{ key: string; windowMs: number }>,
  now: Date,
): Promise<CountedEvent[]> {
  // Never inside another request's transaction: a failed redemption's rollback would undo it.
  return queuedWrite(db, (tx) => upsertCounts(tx, events, now));
}

async function upsertCounts(
  db: Database,
  events: ReadonlyArray<{ key: string; windowMs: number }>,
  now: Date,
): Promise<CountedEvent[]> {
  const { rateLimit } = db.tables;
  const windowEnded = lte(rateLimit.windowEndsAt, now);
  // Rows in key order: Postgres locks them in that order, so two of these never deadlock.
  const values = [...events]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ key, windowMs }) => ({ key, count: 1, windowEndsAt: new Date(now.getTime() + windowMs) }));
  // No wait for another process's SQLite lock here: queuedWrite's BEGIN IMMEDIATE has waited for it
  // (db/busy.ts), and the transaction holds it.
  return db.orm
    .insert(rateLimit)
    .values(values)
    .onConflictDoUpdate({
      target: rateLimit.key,
      set: {
        count: sql`CASE WHEN ${windowEnded} THEN 1 ELSE ${rateLimit.count} + 1 END`,
        windowEndsAt: sql`CASE WHEN ${windowEnded} THEN excluded.window_ends_at ELSE ${rateLimit.windowEndsAt} END`,
      },
    })
    .returning({ key: rateLimit.key, count: rateLimit.count, windowEndsAt: rateLimit.windowEndsAt });
}

/** Counts one event against `key` in a fixed window; returns the count and when the window ends. */
export async function countEvent(
  db: Database,
  key: string,
  windowMs: number,
  now: Date,
): Promise<{ count: number; windowEndsAt: Date }> {
  const [row] = await countEvents(db, [{ key, windowMs }], now);
  return row!;
}

/**
 * openCounts' statement for `arity` keys, prepared once: every throttled login and redemption
 * reads its counts first, and building and preparing the query each time cost ~55 µs of the ~60 µs
 * read (bench/README.md, "Redemption's budget"). The throttle asks with one or two keys.
 */
const openCountsStatements = new Map<number, ReturnType<typeof openCountsStatementOf>>();

function openCountsStatementOf(arity: number) {
  return preparedPer((db) => {
    const { rateLimit } = db.tables;
    // A Param around the placeholder lets the column encode the Date it is given (ms on SQLite).
    const now = sql`${sql.param(sql.placeholder("now"), rateLimit.windowEndsAt)}`;
    const keys = Array.from({ length: arity }, (_, i) => sql.placeholder(`key${i}`));
    const query = db.orm
      .select({ key: rateLimit.key, count: rateLimit.count, windowEndsAt: rateLimit.windowEndsAt })
      .from(rateLimit)
      .where(and(inArray(rateLimit.key, keys), gt(rateLimit.windowEndsAt, now)));
    return prepareRows(query, `open_counts_${arity}`, {
      key: rateLimit.key,
      count: rateLimit.count,
      windowEndsAt: rateLimit.windowEndsAt,
    });
  });
}

/** The counts of those `keys` whose window is still open at `now` (keys without one are absent). */
export async function openCounts(db: Database, keys: readonly string[], now: Date): Promise<CountedEvent[]> {
  if (keys.length === 0) return [];
  let statement = openCountsStatements.get(keys.length);
  if (statement === undefined) {
    statement = openCountsStatementOf(keys.length);
    openCountsStatements.set(keys.length, statement);
  }
  const placeholders: Record<string, unknown> = { now };
  for (const [i, key] of keys.entries()) placeholders[`key${i}`] = key;
  return rowsOf(db, statement(db), placeholders);
}

export async function deleteExpiredWindows(db: Database, now: Date): Promise<number> {
  const { rateLimit } = db.tables;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm.delete(rateLimit).where(lte(rateLimit.windowEndsAt, now)).returning({ key: rateLimit.key }),
  );
  return rows.length;
}
