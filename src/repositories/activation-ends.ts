// activation_end rows (README "Offline entitlements"): the record that an activation ended,
// written in the transaction that deletes it, read by (user_uuid, ended_at) for the revocations
// feed, deleted in slices once no token can still hold the book.
import { and, asc, eq, gte, inArray, lt } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite } from "../db/transaction";

export type ActivationEndRow = Database["tables"]["activationEnd"]["$inferSelect"];

/** Records that these activations ended at `endedAt`; run it on the delete's transaction handle. */
export async function recordActivationEnds(
  tx: Database,
  ended: Array<{ id: number; userUuid: string; bookId: number }>,
  endedAt: Date,
): Promise<void> {
  if (ended.length === 0) return;
  await tx.orm
    .insert(tx.tables.activationEnd)
    .values(
      ended.map((row) => ({ userUuid: row.userUuid, bookId: row.bookId, activationId: row.id, endedAt })),
    );
}

/**
 * The user's activations that ended at or after `since`, oldest first, at most `limit`: one
 * range of activation_end_user_ended_idx.
 */
export function activationEndsSince(
  db: Database,
  userUuid: string,
  since: Date,
  limit: number,
): Promise<ActivationEndRow[]> {
  const { activationEnd } = db.tables;
  return db.orm
    .select()
    .from(activationEnd)
    .where(and(eq(activationEnd.userUuid, userUuid), gte(activationEnd.endedAt, since)))
    .orderBy(asc(activationEnd.endedAt), asc(activationEnd.id))
    .limit(limit);
}

/** Deletes up to `limit` records that ended before `before`, oldest first; answers how many. */
export async function deleteActivationEndsBefore(db: Database, before: Date, limit: number): Promise<number> {
  const { activationEnd } = db.tables;
  const ids = await db.orm
    .select({ id: activationEnd.id })
    .from(activationEnd)
    .where(lt(activationEnd.endedAt, before))
    .orderBy(asc(activationEnd.endedAt))
    .limit(limit);
  if (ids.length === 0) return 0;
  const deleted = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(activationEnd)
      .where(
        inArray(
          activationEnd.id,
          ids.map((row) => row.id),
        ),
      )
      .returning({ id: activationEnd.id }),
  );
  return deleted.length;
}
