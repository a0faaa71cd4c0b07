import { asc, eq, inArray, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { queuedWrite } from "../db/transaction";

export type AdminGrantRow = Database["tables"]["adminGrant"]["$inferSelect"];

// Looked up at every login and every session re-check: prepared once.
const grantOfStatement = preparedPer((db) => {
  const { adminGrant } = db.tables;
  const query = db.orm
    .select({ userUuid: adminGrant.userUuid })
    .from(adminGrant)
    .where(eq(adminGrant.userUuid, sql.placeholder("uuid")));
  return prepareRows(query, "admin_grant_of", { userUuid: adminGrant.userUuid });
});

export async function hasAdminGrant(db: Database, userUuid: string): Promise<boolean> {
  const rows = await rowsOf(db, grantOfStatement(db), { uuid: userUuid });
  return rows.length > 0;
}

/** Adds the grant; false when the user already had one. */
export async function insertAdminGrant(db: Database, userUuid: string, at: Date): Promise<boolean> {
  const { adminGrant } = db.tables;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .insert(adminGrant)
      .values({ userUuid, grantedAt: at })
      .onConflictDoNothing()
      .returning({ userUuid: adminGrant.userUuid }),
  );
  return rows.length > 0;
}

/** Removes the grant; false when there was none. */
export async function deleteAdminGrant(db: Database, userUuid: string): Promise<boolean> {
  const { adminGrant } = db.tables;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(adminGrant)
      .where(eq(adminGrant.userUuid, userUuid))
      .returning({ userUuid: adminGrant.userUuid }),
  );
  return rows.length > 0;
}

export async function listAdminGrants(db: Database): Promise<AdminGrantRow[]> {
  const { adminGrant } = db.tables;
  return db.orm.select().from(adminGrant).orderBy(asc(adminGrant.grantedAt), asc(adminGrant.userUuid));
}

/** Which of `userUuids` hold a grant: one query for a page of users (services/users.ts). */
export async function adminGrantsAmong(db: Database, userUuids: readonly string[]): Promise<Set<string>> {
  if (userUuids.length === 0) return new Set();
  const { adminGrant } = db.tables;
  const rows = await db.orm
    .select({ userUuid: adminGrant.userUuid })
    .from(adminGrant)
    .where(inArray(adminGrant.userUuid, [...userUuids]));
  return new Set(rows.map((row) => row.userUuid));
}
