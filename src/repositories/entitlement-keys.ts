// entitlement_key rows (README "Offline entitlements"): a handful of keys ever (one per rotation),
// read whole, by generation. The private half is stored sealed (auth/entitlement-signing.ts).
import { asc, desc } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite } from "../db/transaction";

export type EntitlementKeyRow = Database["tables"]["entitlementKey"]["$inferSelect"];
export type NewEntitlementKey = Database["tables"]["entitlementKey"]["$inferInsert"];

/**
 * Every key, oldest generation first. Keys that can no longer verify a live token are few and
 * small: the table holds one row per rotation, so the read is bounded by the operator's rotations.
 */
export function listEntitlementKeys(db: Database): Promise<EntitlementKeyRow[]> {
  const { entitlementKey } = db.tables;
  return db.orm.select().from(entitlementKey).orderBy(asc(entitlementKey.id));
}

/** The newest generation, or undefined before the first key. */
export async function newestEntitlementKey(db: Database): Promise<EntitlementKeyRow | undefined> {
  const { entitlementKey } = db.tables;
  const [row] = await db.orm.select().from(entitlementKey).orderBy(desc(entitlementKey.id)).limit(1);
  return row;
}

/**
 * Inserts the key unless its generation exists (then false): two instances making the same
 * generation at once meet on the primary key, and both go on with the one that was stored.
 */
export async function insertEntitlementKeyIfAbsent(db: Database, row: NewEntitlementKey): Promise<boolean> {
  const { entitlementKey } = db.tables;
  const inserted = await queuedWrite(db, (tx) =>
    tx.orm.insert(entitlementKey).values(row).onConflictDoNothing().returning({ id: entitlementKey.id }),
  );
  return inserted.length === 1;
}
