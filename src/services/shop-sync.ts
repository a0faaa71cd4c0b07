// README, Shop orders: paid WooCommerce orders grant books, refunds and cancellations take them
// back. The shop's database is the only truth (webhooks only say "look at this order now"). Each
// order is reconciled under a claim (one instance at a time), read from the shop outside any
// transaction, and its grants brought to what the order says now in one transaction of bookdist's
// database: the rule is services/shop-plan.ts, the step that carries it out services/shop-apply.ts.
import type { Database } from "#db";
import type { Config } from "../config";
import { withTransaction } from "../db/transaction";
import type { Clock } from "../lib/clock";
import { describeError, type Logger } from "../lib/logger";
import { AppError } from "../lib/problems";
import * as orders from "../repositories/shop-orders";
import { mappingsOfProducts, type ShopProductRow } from "../repositories/shop-products";
import type { ShopCustomers, StoreUser } from "../store/directory";
import type { OrderStorage, ShopOrderSnapshot, WooCommerceOrders } from "../store/woocommerce";
import { orderKeyMatches } from "./order-key";
import { applyGrantPlan, readOrderFacts } from "./shop-apply";
import { reportGrant, reportRevocation } from "./shop-grants";
import { planGrants } from "./shop-plan";

export interface ShopSyncDeps {
  db: Database;
  config: Config;
  clock: Clock;
  logger: Logger;
}

export interface SyncResult {
  ordersSeen: number;
  granted: number;
  revoked: number;
}

/**
 * The scan re-reads this much before the cursor: a shop transaction that committed late with an
 * earlier updated-at, or a clock step, is still seen. Re-reading is cheap: an order whose record is
 * newer than the row's updated-at is skipped.
 */
const SYNC_OVERLAP_MS = 5 * 60_000;
/** How long a claim lasts: far longer than one order's reconciliation, short enough after a crash. */
const CLAIM_MS = 60_000;
/** How long a reconciliation waits for another instance's claim on the same order. */
const CLAIM_WAIT_MS = 15_000;
const CLAIM_POLL_MS = 50;
const SCAN_CHUNK = 500;

/** One answer for every claim that proves nothing, so that none tells which part was wrong. */
const noSuchGuestOrder = () => new AppError("NOT_FOUND", "There is no guest order with this number and key.");

export type ShopOrderView = NonNullable<Awaited<ReturnType<ShopSync["view"]>>>;

/** Another instance held the order's claim for the whole wait: 503 to a webhook, skipped by a sync. */
class OrderBusyError extends AppError {
  constructor(orderId: number) {
    super("SERVICE_UNAVAILABLE", `Order ${orderId} is being reconciled elsewhere; try again.`, {
      headers: { "Retry-After": "5" },
    });
  }
}

export class ShopSync {
  constructor(
    private readonly deps: ShopSyncDeps,
    private readonly shop: WooCommerceOrders,
    private readonly customers: ShopCustomers,
  ) {}

  get paidStatuses(): string[] {
    return this.deps.config.shopPaidStatuses;
  }

  /** One reconciliation of every order changed since the cursor (minus the overlap). */
  async sync(): Promise<SyncResult> {
    const { db, clock, logger } = this.deps;
    const startedLocal = clock.now();
    const startedShop = await this.shop.now();
    const storage = await this.shop.storage();
    const state = await orders.readSyncState(db);
    if (state?.orderStorage && state.orderStorage !== storage)
      logger.info("the shop's order storage changed", { from: state.orderStorage, to: storage });
    const since = new Date((state?.cursorAt?.getTime() ?? 0) - SYNC_OVERLAP_MS);
    const result: SyncResult = { ordersSeen: 0, granted: 0, revoked: 0 };
    const seen = new Set<number>();
    // Rows come oldest first, so an order's newest row may follow rows already reconciled before:
    // an order is set aside only once reconciled in this scan, never on a row that was stale.
    const reconciled = new Set<number>();
    let failed = 0;
    let after: { at: Date; rowId: number } | undefined;
    for (;;) {
      const changed = await this.shop.changedSince(
        storage,
        new Date(Math.max(0, since.getTime())),
        after,
        SCAN_CHUNK,
      );
      for (const row of changed) {
        if (reconciled.has(row.orderId)) continue;
        seen.add(row.orderId);
        const record = await orders.findShopOrder(db, row.orderId);
        // Read after this change had its second: nothing to learn from this row (a newer one may follow).
        if (record?.shopModifiedAt && record.syncedAt && row.modifiedAt <= record.shopModifiedAt) continue;
        reconciled.add(row.orderId);
        const part = await this.reconcileOrLog(row.orderId, storage, startedShop);
        if (part) this.add(result, part);
        else failed++;
      }
      const last = changed.at(-1);
      if (!last || changed.length < SCAN_CHUNK) break;
      after = { at: last.modifiedAt, rowId: last.rowId };
    }
    result.ordersSeen = seen.size;
    await orders.writeSyncState(db, {
      orderStorage: storage,
      // An order that failed is met again next time: the cursor stays where it was.
      ...(failed === 0 ? { cursorAt: startedShop } : {}),
      lastSyncStartedAt: startedLocal,
      lastSyncAt: clock.now(),
      lastSyncOrders: result.ordersSeen,
    });
    return result;
  }

  /** A webhook named this order: reconcile it now, from the shop's database. */
  async reconcileNow(orderId: number): Promise<SyncResult> {
    const storage = await this.shop.storage();
    const from = await this.shop.now();
    const result = { ordersSeen: 1, granted: 0, revoked: 0 };
    this.add(result, await this.reconcile(orderId, storage, from));
    return result;
  }

  async noteWebhook(): Promise<void> {
    await orders.writeSyncState(this.deps.db, { lastWebhookAt: this.deps.clock.now() });
  }

  /** The order as the shop holds it now and what it granted; null when the shop has no such order. */
  async view(orderId: number) {
    const storage = await this.shop.storage();
    const snapshot = await this.shop.read(storage, orderId);
    if (!snapshot) return null;
    const record = await orders.findShopOrder(this.deps.db, orderId);
    const grants = await orders.grantsOfOrder(this.deps.db, orderId);
    return {
      orderId,
      status: snapshot.status,
      paid: this.paidStatuses.includes(snapshot.status),
      /** The order's line items as the shop holds them now (the console shows them; the API does not). */
      lines: snapshot.lines,
      // A claimed guest order shows its claimant even before it granted anything (nothing mapped yet).
      userUuid: record?.userUuid ?? (snapshot.customerId === 0 ? record?.guestClaimUuid : null) ?? null,
      grants,
      syncedAt: record?.syncedAt ?? null,
    };
  }

  /**
   * Binds a guest order to the account that proves it with the order key, then reconciles it now
   * (its books granted to that account). A wrong key, an unknown order and an order with a customer
   * are the same NOT_FOUND; another account's earlier claim is CONFLICT. services/shop-claim.ts
   * throttles the callers.
   */
  async claim(orderId: number, orderKey: string, userUuid: string): Promise<ShopOrderView> {
    const storage = await this.shop.storage();
    const from = await this.shop.now();
    // Both are read whether or not the order exists: an unknown order costs what a wrong key does.
    const [snapshot, key] = await Promise.all([
      this.shop.read(storage, orderId),
      this.shop.orderKey(storage, orderId),
    ]);
    const proved = orderKeyMatches(key, orderKey);
    if (!proved || snapshot === null || snapshot.customerId !== 0) throw noSuchGuestOrder();
    const holder = await orders.bindGuestClaim(this.deps.db, orderId, userUuid, this.deps.clock.now());
    if (holder !== userUuid) throw new AppError("CONFLICT", "Another account has claimed this order.");
    await this.reconcile(orderId, storage, from);
    const view = await this.view(orderId);
    if (!view) throw noSuchGuestOrder();
    return view;
  }

  async storage(): Promise<OrderStorage | null> {
    try {
      return await this.shop.storage();
    } catch {
      return null;
    }
  }

  close(): Promise<void> {
    return this.shop.close();
  }

  private add(total: { granted: number; revoked: number }, part: { granted: number; revoked: number }): void {
    total.granted += part.granted;
    total.revoked += part.revoked;
  }

  /**
   * One order of a sync: its failure (a claim held too long elsewhere, a broken row) is logged and
   * the sync goes on, but a shop that cannot be reached ends the sync.
   */
  private async reconcileOrLog(orderId: number, storage: OrderStorage, from: Date) {
    try {
      return await this.reconcile(orderId, storage, from);
    } catch (error) {
      if (
        error instanceof AppError &&
        error.code === "SERVICE_UNAVAILABLE" &&
        !(error instanceof OrderBusyError)
      )
        throw error;
      this.deps.logger.warn("shop order not reconciled", { orderId, ...describeError(error) });
      return undefined;
    }
  }

  /**
   * Reconciles one order under its claim. `from`: the shop's clock before the read, so that a later
   * scan knows which changes this read has seen.
   */
  async reconcile(
    orderId: number,
    storage: OrderStorage,
    from: Date,
  ): Promise<{ granted: number; revoked: number }> {
    const { db, clock } = this.deps;
    if (await this.nothingToDo(storage, orderId)) return { granted: 0, revoked: 0 };
    const token = crypto.randomUUID();
    await this.waitForClaim(orderId, token);
    let snapshot: ShopOrderSnapshot | null;
    let user: StoreUser | null = null;
    let mappings: ShopProductRow[];
    let claimant: string | null;
    try {
      snapshot = await this.shop.read(storage, orderId);
      const lines = snapshot?.lines.filter((line) => line.netQuantity > 0) ?? [];
      mappings = await mappingsOfProducts(db, [...new Set(lines.map((line) => line.productId))]);
      // Read under the claim: a guest order bound by POST /shop/claim a moment ago is seen.
      claimant = (await orders.findShopOrder(db, orderId))?.guestClaimUuid ?? null;
      // Also without a mapping now: the grants an earlier mapping made stay with the order's customer.
      if (snapshot) user = await this.customerOf(snapshot, claimant);
    } catch (error) {
      await orders.releaseClaim(db, orderId, token);
      throw error;
    }
    const now = clock.now();
    const customer = user?.uuid ?? null;
    const books = mappings.map((mapping) => mapping.bookId);
    const applied = await this.apply(orderId, token, async () =>
      withTransaction(db, async (tx) => {
        if (!(await orders.holdsClaim(tx, orderId, token)))
          throw new Error("another instance took over the order's claim");
        const plan = planGrants({
          orderId,
          snapshot,
          paidStatuses: this.paidStatuses,
          guestOrders: this.deps.config.shopGuestOrders,
          claimant,
          customer,
          mappings,
          ...(await readOrderFacts(tx, orderId, customer, books)),
        });
        const done = await applyGrantPlan(tx, plan.actions, now);
        await orders.recordOrder(tx, orderId, {
          ...plan.order,
          // The shop's changes before this second are in the record (its clock has whole seconds).
          shopModifiedAt: new Date(from.getTime() - 1000),
          syncedAt: now,
        });
        return done;
      }),
    );
    // Reported once committed: a rolled-back transaction granted nothing.
    for (const event of applied.granted) reportGrant(this.deps.logger, event);
    for (const event of applied.revoked) reportRevocation(this.deps.logger, event);
    return { granted: applied.granted.length, revoked: applied.revoked.length };
  }

  /** Runs the apply transaction; if it fails, the claim is given back at once (not at its expiry). */
  private async apply<T>(orderId: number, token: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await orders.releaseClaim(this.deps.db, orderId, token).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Most of a shop's orders buy nothing that grants a book: an order with no mapped line, no grant
   * and no guest waiting is left without a claim or a write (a first sync of a large shop reads each
   * order once and writes only for the mapped ones). Anything else is read again under the claim.
   */
  private async nothingToDo(storage: OrderStorage, orderId: number): Promise<boolean> {
    const { db } = this.deps;
    const snapshot = await this.shop.read(storage, orderId);
    const products =
      snapshot?.lines.filter((line) => line.netQuantity > 0).map((line) => line.productId) ?? [];
    if ((await mappingsOfProducts(db, [...new Set(products)])).length > 0) return false;
    return (await orders.grantsOfOrder(db, orderId)).length === 0;
  }

  /**
   * The shop's customer when the order has one (also when WooCommerce set it on an order a guest
   * had claimed: the shop decides); else the account that claimed the guest order; else nobody.
   */
  private async customerOf(snapshot: ShopOrderSnapshot, claimant: string | null): Promise<StoreUser | null> {
    if (snapshot.customerId > 0) return this.customers.findByStoreUserId(String(snapshot.customerId));
    return claimant ? this.customers.findByUuid(claimant) : null;
  }

  private async waitForClaim(orderId: number, token: string): Promise<void> {
    const { db, clock } = this.deps;
    const deadline = Date.now() + CLAIM_WAIT_MS;
    for (;;) {
      const now = clock.now();
      if (await orders.claimOrder(db, orderId, token, now, new Date(now.getTime() + CLAIM_MS))) return;
      if (Date.now() > deadline) throw new OrderBusyError(orderId);
      await Bun.sleep(CLAIM_POLL_MS);
    }
  }
}
