// store_user_link: which store user (wp_users.ID, or the embedded store's id) a bookdist uuid
// names. The WordPress store keeps it in step with the shop's usermeta, so a uuid is found without
// scanning usermeta; the embedded store writes it with the user.
import { eq, or } from "drizzle-orm";
import type { Database } from "#db";
import { preparedFindBy } from "../db/rows";
import { queuedWrite, withTransaction } from "../db/transaction";

export type StoreUserLinkRow = Database["tables"]["storeUserLink"]["$inferSelect"];

// GET /authentication/me and every role check look a user up by uuid: prepared, so the SQL is
// built and compiled once rather than on every call.
const linkByUuid = preparedFindBy("storeUserLink", "uuid", "store_user_link_by_uuid");

export function findStoreUserLink(db: Database, uuid: string): Promise<StoreUserLinkRow | undefined> {
  return linkByUuid(db, uuid);
}

/** A new user's link, inside the transaction that creates the user (`tx`). */
export async function insertStoreUserLink(tx: Database, link: StoreUserLinkRow): Promise<void> {
  await tx.orm.insert(tx.tables.storeUserLink).values(link);
}

/**
 * Makes `link` the only row for its uuid and for its store user: a stale row (the uuid meta was
 * edited, or the user re-created in the shop) gives way, since the shop is the record. Nothing is
 * written when the row is already there, which is nearly always.
 */
export async function putStoreUserLink(db: Database, link: StoreUserLinkRow): Promise<void> {
  const { storeUserLink } = db.tables;
  const matching = or(eq(storeUserLink.uuid, link.uuid), eq(storeUserLink.storeUserId, link.storeUserId));
  const rows = await db.orm
    .select({ uuid: storeUserLink.uuid, storeUserId: storeUserLink.storeUserId })
    .from(storeUserLink)
    .where(matching);
  if (rows.length === 1 && rows[0]?.uuid === link.uuid && rows[0].storeUserId === link.storeUserId) return;
  if (rows.length === 0) {
    await queuedWrite(db, (tx) => tx.orm.insert(tx.tables.storeUserLink).values(link).onConflictDoNothing());
    return;
  }
  await withTransaction(db, async (tx) => {
    await tx.orm.delete(tx.tables.storeUserLink).where(matching);
    await tx.orm.insert(tx.tables.storeUserLink).values(link).onConflictDoNothing();
  });
}
