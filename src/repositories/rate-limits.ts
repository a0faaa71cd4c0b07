import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Database } from "#db";

/** Counts one event against `key` in a fixed window; returns the count and when the window ends. */
export async function countEvent(
  db: Database,
  key: string,
  windowMs: number,
  now: Date,
): Promise<{ count: number; windowEndsAt: Date }> {
  const { rateLimit } = db.tables;
  const windowEnded = lte(rateLimit.windowEndsAt, now);
  // One statement, so concurrent requests on several instances cannot lose a count.
  const [row] = await db.orm
    .insert(rateLimit)
    .values({ key, count: 1, windowEndsAt: new Date(now.getTime() + windowMs) })
    .onConflictDoUpdate({
      target: rateLimit.key,
      set: {
        count: sql`CASE WHEN ${windowEnded} THEN 1 ELSE ${rateLimit.count} + 1 END`,
        windowEndsAt: sql`CASE WHEN ${windowEnded} THEN excluded.window_ends_at ELSE ${rateLimit.windowEndsAt} END`,
      },
    })
    .returning({ count: rateLimit.count, windowEndsAt: rateLimit.windowEndsAt });
  return row!;
}

/** The window of `key` if it is still open and at or over `limit`. */
export async function findExceeded(
  db: Database,
  key: string,
  limit: number,
  now: Date,
): Promise<{ windowEndsAt: Date } | undefined> {
  const { rateLimit } = db.tables;
  const [row] = await db.orm
    .select({ windowEndsAt: rateLimit.windowEndsAt })
    .from(rateLimit)
    .where(and(eq(rateLimit.key, key), gt(rateLimit.windowEndsAt, now), sql`${rateLimit.count} >= ${limit}`))
    .limit(1);
  return row;
}

export async function clearKey(db: Database, key: string): Promise<void> {
  await db.orm.delete(db.tables.rateLimit).where(eq(db.tables.rateLimit.key, key));
}

export async function deleteExpiredWindows(db: Database, now: Date): Promise<number> {
  const { rateLimit } = db.tables;
  const rows = await db.orm
    .delete(rateLimit)
    .where(lte(rateLimit.windowEndsAt, now))
    .returning({ key: rateLimit.key });
  return rows.length;
}
