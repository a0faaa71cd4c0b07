// device_token rows (README "Reading apps"): only digests of a token are stored; a token is found
// by the SHA-256 of its text (or, for reading-progress clients, of its MD5), one indexed read.
import { and, asc, count, eq, gt, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { queuedWrite, withTransaction } from "../db/transaction";

export type DeviceTokenRow = Database["tables"]["deviceToken"]["$inferSelect"];
export type NewDeviceToken = Omit<Database["tables"]["deviceToken"]["$inferInsert"], "id">;

/** Live: neither revoked nor past its expiry. */
function live(db: Database, now: Date) {
  const { deviceToken } = db.tables;
  return and(
    isNull(deviceToken.revokedAt),
    or(isNull(deviceToken.expiresAt), gt(deviceToken.expiresAt, now)),
  );
}

/**
 * Inserts the token unless the user already holds `limit` live ones (then undefined), in one
 * transaction: on Postgres a per-user advisory lock orders two creations, on SQLite the
 * transaction's write lock does, so parallel requests cannot pass the limit together.
 */
export async function insertDeviceTokenWithin(
  db: Database,
  token: NewDeviceToken,
  limit: number,
  now: Date,
): Promise<DeviceTokenRow | undefined> {
  return withTransaction(db, async (tx) => {
    const { deviceToken } = tx.tables;
    if (tx.dialect === "postgres") {
      // Only the Postgres builder runs plain SQL this way; the guard says this is it.
      const orm: unknown = tx.orm;
      if (!canExecute(orm)) throw new Error("a Postgres transaction without execute()");
      await orm.execute(
        sql`SELECT pg_advisory_xact_lock(hashtext(${`bookdist:device-token:${token.userUuid}`}))`,
      );
    }
    const [held] = await tx.orm
      .select({ n: count() })
      .from(deviceToken)
      .where(and(eq(deviceToken.userUuid, token.userUuid), live(tx, now)));
    if (Number(held?.n ?? 0) >= limit) return undefined;
    const [row] = await tx.orm.insert(deviceToken).values(token).returning();
    return row;
  });
}

function canExecute(orm: unknown): orm is { execute(query: SQL): Promise<unknown> } {
  return (
    typeof orm === "object" && orm !== null && typeof (orm as { execute?: unknown }).execute === "function"
  );
}

/** The user's live tokens, oldest first: at most the per-user limit, so a plain read. */
export function liveDeviceTokensOf(db: Database, userUuid: string, now: Date): Promise<DeviceTokenRow[]> {
  const { deviceToken } = db.tables;
  return db.orm
    .select()
    .from(deviceToken)
    .where(and(eq(deviceToken.userUuid, userUuid), live(db, now)))
    .orderBy(asc(deviceToken.createdAt), asc(deviceToken.id));
}

export async function findDeviceToken(db: Database, id: number): Promise<DeviceTokenRow | undefined> {
  const [row] = await db.orm.select().from(db.tables.deviceToken).where(eq(db.tables.deviceToken.id, id));
  return row;
}

// Every request with a device token looks it up: prepared, so the SQL is built only once.
const bySha256Statement = preparedPer((db) => {
  const { deviceToken } = db.tables;
  const query = db.orm
    .select()
    .from(deviceToken)
    .where(eq(deviceToken.sha256, sql.placeholder("sha256")));
  return prepareRows(query, "device_token_by_sha256", deviceToken);
});

const byMd5Sha256Statement = preparedPer((db) => {
  const { deviceToken } = db.tables;
  const query = db.orm
    .select()
    .from(deviceToken)
    .where(eq(deviceToken.md5Sha256, sql.placeholder("md5Sha256")));
  return prepareRows(query, "device_token_by_md5_sha256", deviceToken);
});

/** The row whose token has this SHA-256 (lower-case hex), revoked or not. */
export async function findDeviceTokenBySha256(
  db: Database,
  sha256: string,
): Promise<DeviceTokenRow | undefined> {
  const rows = await rowsOf(db, bySha256Statement(db), { sha256 });
  return rows[0];
}

/** The row whose token's lower-case hex MD5 has this SHA-256 (KOReader's key), revoked or not. */
export async function findDeviceTokenByMd5Sha256(
  db: Database,
  md5Sha256: string,
): Promise<DeviceTokenRow | undefined> {
  const rows = await rowsOf(db, byMd5Sha256Statement(db), { md5Sha256 });
  return rows[0];
}

/** Marks the token revoked (if it was not yet); the row as it is afterwards, or undefined. */
export async function revokeDeviceTokenRow(
  db: Database,
  id: number,
  at: Date,
): Promise<DeviceTokenRow | undefined> {
  const { deviceToken } = db.tables;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .update(deviceToken)
      .set({ revokedAt: at })
      .where(and(eq(deviceToken.id, id), isNull(deviceToken.revokedAt)))
      .returning(),
  );
  return rows[0];
}

/** Records a re-check of the account, which is also the token's use (at most once a minute). */
export async function markDeviceTokenChecked(db: Database, id: number, at: Date): Promise<void> {
  const { deviceToken } = db.tables;
  await queuedWrite(db, (tx) =>
    tx.orm.update(deviceToken).set({ checkedAt: at, lastUsedAt: at }).where(eq(deviceToken.id, id)),
  );
}

/** Tokens revoked, or expired, at or before `endedBefore`: the cleanup job's. */
export async function deleteEndedDeviceTokens(db: Database, endedBefore: Date): Promise<number> {
  const { deviceToken } = db.tables;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(deviceToken)
      .where(or(lte(deviceToken.revokedAt, endedBefore), lte(deviceToken.expiresAt, endedBefore)))
      .returning({ id: deviceToken.id }),
  );
  return rows.length;
}
