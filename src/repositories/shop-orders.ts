// bookdist's record of the shop's orders (migration 0005): one shop_order row per order seen, its
// claim, the grants it made per line and book, and the reconciliation's shared cursor.
import { and, asc, eq, inArray, isNull, lt, ne, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite, withTransaction } from "../db/transaction";

export type ShopOrderRow = Database["tables"]["shopOrder"]["$inferSelect"];
export type ShopOrderGrantRow = Database["tables"]["shopOrderGrant"]["$inferSelect"];
export type ShopSyncStateRow = Database["tables"]["shopSyncState"]["$inferSelect"];
type GrantState = ShopOrderGrantRow["state"];

const SYNC_STATE_ID = 1;

/**
 * Takes the order's claim for `token` until `until`, unless another live claim holds it: one
 * instance at a time reconciles an order. The row is made on first sight. On Postgres the UPDATE
 * waits for a racing claimant's row lock and then re-checks its WHERE, so exactly one wins.
 */
export function claimOrder(
  db: Database,
  orderId: number,
  token: string,
  now: Date,
  until: Date,
): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    const { shopOrder } = tx.tables;
    await tx.orm.insert(shopOrder).values({ orderId, status: "", paid: false }).onConflictDoNothing();
    const claimed = await tx.orm
      .update(shopOrder)
      .set({ claimToken: token, claimedUntil: until })
      .where(
        and(
          eq(shopOrder.orderId, orderId),
          or(
            isNull(shopOrder.claimedUntil),
            lt(shopOrder.claimedUntil, now),
            eq(shopOrder.claimToken, token),
          ),
        ),
      )
      .returning({ orderId: shopOrder.orderId });
    return claimed.length === 1;
  });
}

/** Gives the claim back without recording anything (the read from the shop failed). */
export async function releaseClaim(db: Database, orderId: number, token: string): Promise<void> {
  await queuedWrite(db, async (tx) => {
    const { shopOrder } = tx.tables;
    await tx.orm
      .update(shopOrder)
      .set({ claimToken: null, claimedUntil: null })
      .where(and(eq(shopOrder.orderId, orderId), eq(shopOrder.claimToken, token)));
  });
}

/** Inside the apply transaction: whether `token` still holds the order's claim (locks the row on Postgres). */
export async function holdsClaim(tx: Database, orderId: number, token: string): Promise<boolean> {
  const { shopOrder } = tx.tables;
  const rows = await tx.orm
    .update(shopOrder)
    .set({ claimToken: token })
    .where(and(eq(shopOrder.orderId, orderId), eq(shopOrder.claimToken, token)))
    .returning({ orderId: shopOrder.orderId });
  return rows.length === 1;
}

/** Postgres: one transaction at a time touches a user's shop activations (promotions read other orders). */
export async function lockUser(tx: Database, userUuid: string): Promise<void> {
  if (tx.dialect !== "postgres") return;
  // Only the Postgres builder has execute(); the dialect check above says this is it.
  const orm = tx.orm as unknown as { execute(query: SQL): Promise<unknown> };
  await orm.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`bookdist:shop-user:${userUuid}`}))`);
}

export async function findShopOrder(db: Database, orderId: number): Promise<ShopOrderRow | undefined> {
  const { shopOrder } = db.tables;
  const [row] = await db.orm.select().from(shopOrder).where(eq(shopOrder.orderId, orderId));
  return row;
}

export function grantsOfOrder(db: Database, orderId: number): Promise<ShopOrderGrantRow[]> {
  const { shopOrderGrant } = db.tables;
  return db.orm
    .select()
    .from(shopOrderGrant)
    .where(eq(shopOrderGrant.orderId, orderId))
    .orderBy(asc(shopOrderGrant.lineItemId), asc(shopOrderGrant.bookId));
}

export interface GrantFields {
  orderId: number;
  lineItemId: number;
  bookId: number;
  userUuid: string | null;
  activationId: number | null;
  state: GrantState;
}

/** Records (or re-records) what one line did for one book. */
export async function upsertGrant(tx: Database, fields: GrantFields, now: Date): Promise<void> {
  const { shopOrderGrant } = tx.tables;
  await tx.orm
    .insert(shopOrderGrant)
    .values({ ...fields, createdAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: [shopOrderGrant.orderId, shopOrderGrant.lineItemId, shopOrderGrant.bookId],
      set: {
        userUuid: fields.userUuid,
        activationId: fields.activationId,
        state: fields.state,
        updatedAt: now,
      },
    });
}

export async function deleteGrant(tx: Database, id: number): Promise<void> {
  const { shopOrderGrant } = tx.tables;
  await tx.orm.delete(shopOrderGrant).where(eq(shopOrderGrant.id, id));
}

/**
 * Other paid orders' lines that found one of these books held by one of these users (by an
 * activation this order may take back), the oldest first: the first grants the book again (README,
 * Shop orders). The current order is not a candidate.
 */
export async function heldElsewhere(
  tx: Database,
  userUuids: string[],
  bookIds: number[],
  exceptOrderId: number,
): Promise<ShopOrderGrantRow[]> {
  if (userUuids.length === 0 || bookIds.length === 0) return [];
  const { shopOrderGrant, shopOrder } = tx.tables;
  const rows = await tx.orm
    .select({ grant: shopOrderGrant })
    .from(shopOrderGrant)
    .innerJoin(shopOrder, eq(shopOrder.orderId, shopOrderGrant.orderId))
    .where(
      and(
        inArray(shopOrderGrant.userUuid, userUuids),
        inArray(shopOrderGrant.bookId, bookIds),
        eq(shopOrderGrant.state, "already-held"),
        ne(shopOrderGrant.orderId, exceptOrderId),
        eq(shopOrder.paid, true),
      ),
    )
    .orderBy(asc(shopOrderGrant.id));
  return rows.map((row) => row.grant);
}

export interface OrderRecord {
  status: string;
  paid: boolean;
  userUuid: string | null;
  shopModifiedAt: Date;
  syncedAt: Date;
}

/** Inside the apply transaction: what the order is now, and its claim given back. */
export async function recordOrder(tx: Database, orderId: number, record: OrderRecord): Promise<void> {
  const { shopOrder } = tx.tables;
  await tx.orm
    .update(shopOrder)
    .set({ ...record, claimToken: null, claimedUntil: null })
    .where(eq(shopOrder.orderId, orderId));
}

/**
 * Binds a guest order to the account that proved its order key, unless another account holds it
 * by proof already: answers the account the order is bound to now (the caller's when it won). A
 * binding without a time (made by e-mail before migration 0006) is no proof and is taken over.
 * One conditional UPDATE decides, so of two accounts claiming at once exactly one is bound.
 */
export function bindGuestClaim(db: Database, orderId: number, userUuid: string, now: Date): Promise<string> {
  return withTransaction(db, async (tx) => {
    const { shopOrder } = tx.tables;
    await tx.orm.insert(shopOrder).values({ orderId, status: "", paid: false }).onConflictDoNothing();
    await tx.orm
      .update(shopOrder)
      .set({ guestClaimUuid: userUuid, guestClaimedAt: now })
      .where(
        and(
          eq(shopOrder.orderId, orderId),
          // The same account claiming again keeps its first time.
          or(isNull(shopOrder.guestClaimUuid), isNull(shopOrder.guestClaimedAt)),
        ),
      );
    const [row] = await tx.orm
      .select({ guestClaimUuid: shopOrder.guestClaimUuid })
      .from(shopOrder)
      .where(eq(shopOrder.orderId, orderId));
    return row?.guestClaimUuid ?? "";
  });
}

export async function readSyncState(db: Database): Promise<ShopSyncStateRow | undefined> {
  const { shopSyncState } = db.tables;
  const [row] = await db.orm.select().from(shopSyncState).where(eq(shopSyncState.id, SYNC_STATE_ID));
  return row;
}

/** Moves the shared state; the cursor only forwards (a slower instance's older cursor is ignored). */
export async function writeSyncState(
  db: Database,
  fields: Partial<Omit<ShopSyncStateRow, "id">>,
): Promise<void> {
  await withTransaction(db, async (tx) => {
    const { shopSyncState } = tx.tables;
    await tx.orm.insert(shopSyncState).values({ id: SYNC_STATE_ID }).onConflictDoNothing();
    const [current] = await tx.orm.select().from(shopSyncState).where(eq(shopSyncState.id, SYNC_STATE_ID));
    const next = { ...fields };
    if (next.cursorAt && current?.cursorAt && next.cursorAt < current.cursorAt) delete next.cursorAt;
    if (Object.keys(next).length > 0)
      await tx.orm.update(shopSyncState).set(next).where(eq(shopSyncState.id, SYNC_STATE_ID));
  });
}

/** A user's latest grants from shop orders, newest first, at most `limit` (index shop_order_grant_user_book_idx). */
export function grantsOfUser(db: Database, userUuid: string, limit: number): Promise<ShopOrderGrantRow[]> {
  const { shopOrderGrant } = db.tables;
  return db.orm
    .select()
    .from(shopOrderGrant)
    .where(eq(shopOrderGrant.userUuid, userUuid))
    .orderBy(sql`${shopOrderGrant.createdAt} desc`, sql`${shopOrderGrant.id} desc`)
    .limit(limit);
}

/**
 * The latest grants of every shop order, newest first (by id: a grant row is made once, then
 * re-recorded in place), `limit` rows after skipping `offset`: read backwards along the primary
 * key, so page 0 costs its rows whatever the table holds.
 */
export function latestGrants(db: Database, limit: number, offset: number): Promise<ShopOrderGrantRow[]> {
  const { shopOrderGrant } = db.tables;
  return db.orm
    .select()
    .from(shopOrderGrant)
    .orderBy(sql`${shopOrderGrant.id} desc`)
    .limit(limit)
    .offset(offset);
}
