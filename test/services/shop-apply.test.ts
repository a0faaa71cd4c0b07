// The apply step on a real database (SQLite, or Postgres with TEST_DATABASE_URL), without a shop:
// the facts read under the users' locks, the plan of services/shop-plan.ts carried out, and the
// unique (user, book) index still deciding when an activation appeared after the plan.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "#db";
import { withTransaction } from "../../src/db/transaction";
import { findActivation, findActivationOfUser, insertActivation } from "../../src/repositories/activations";
import { insertBook } from "../../src/repositories/books";
import { claimOrder, grantsOfOrder, recordOrder } from "../../src/repositories/shop-orders";
import { countAuditEvents, listAuditEvents } from "../../src/services/audit";
import { applyGrantPlan, readOrderFacts } from "../../src/services/shop-apply";
import { planGrants } from "../../src/services/shop-plan";
import type { OrderLine } from "../../src/store/woocommerce";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";

const PRODUCT = 1520;
const BUYER = "0b9d1c53-6c1d-4f4e-9d7e-0a1b2c3d4e5f";
const now = new Date("2026-01-02T03:04:05.000Z");

let database: TestDatabase;
let db: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  db = database.handle.db;
});
afterAll(async () => {
  await database?.drop();
});

/** One reconciliation of the order as the shop holds it: facts, plan, apply, record. */
async function reconcile(
  orderId: number,
  bookId: number,
  status: string,
  lines: OrderLine[],
  before?: (tx: Database) => Promise<void>,
) {
  expect(await claimOrder(db, orderId, "token", now, new Date(now.getTime() + 60_000))).toBe(true);
  return withTransaction(db, async (tx) => {
    const plan = planGrants({
      orderId,
      snapshot: { orderId, status, customerId: 42, lines },
      paidStatuses: ["wc-processing", "wc-completed"],
      guestOrders: "claim",
      claimant: null,
      customer: BUYER,
      mappings: [{ productId: PRODUCT, variationId: 0, bookId }],
      ...(await readOrderFacts(tx, orderId, BUYER, [bookId])),
    });
    await before?.(tx);
    const applied = await applyGrantPlan(tx, plan.actions, now);
    await recordOrder(tx, orderId, { ...plan.order, shopModifiedAt: now, syncedAt: now });
    return applied;
  });
}

const line = (lineItemId: number, netQuantity = 1): OrderLine => ({
  lineItemId,
  productId: PRODUCT,
  variationId: 0,
  netQuantity,
});

const book = async (title: string) =>
  (await insertBook(db, { title, author: null, isbn: null, description: null, language: null }, now)).id;

describe("applyGrantPlan", () => {
  test("each grant and revocation is one audit event of the shop's, naming the order; an order seen again writes none", async () => {
    const bookId = await book("Audited order");
    const before = await countAuditEvents(db);
    const granted = await reconcile(301, bookId, "wc-completed", [line(1)]);
    const activationId = granted.granted[0]!.activationId;
    await reconcile(301, bookId, "wc-completed", [line(1)]);
    expect(await countAuditEvents(db)).toBe(before + 1);
    await reconcile(301, bookId, "wc-refunded", [line(1, 0)]);
    await reconcile(301, bookId, "wc-refunded", [line(1, 0)]);
    expect(await countAuditEvents(db)).toBe(before + 2);
    const read = await listAuditEvents(
      db,
      { sort: [], limit: 2 },
      { targetType: "activation", targetId: String(activationId) },
    );
    const [revoked, grant] = "rows" in read ? read.rows : [];
    const common = {
      actorUuid: null,
      actorEmail: null,
      actorVia: "shop",
      requestId: null,
      targetType: "activation",
    };
    expect(grant).toMatchObject({ ...common, action: "shop.grant" });
    expect(JSON.parse(grant!.changes)).toEqual({
      bookId: [null, bookId],
      userUuid: [null, BUYER],
      shopOrderId: [null, 301],
      lineItemId: [null, 1],
    });
    expect(revoked).toMatchObject({ ...common, action: "shop.revoke" });
    expect(JSON.parse(revoked!.changes)).toMatchObject({ shopOrderId: [301, null], userUuid: [BUYER, null] });
  });

  test("500 orders seen, 50 of them granting: 50 events, not 500", async () => {
    const bookIds = await Promise.all(Array.from({ length: 50 }, (_, i) => book(`Scale ${i}`)));
    const before = await countAuditEvents(db);
    for (let i = 0; i < 500; i++) {
      const mapped = i % 10 === 0;
      const lines = [{ ...line(1), productId: mapped ? PRODUCT : 9_999 }];
      await reconcile(10_000 + i, mapped ? bookIds[i / 10]! : bookIds[0]!, "wc-completed", lines);
    }
    expect(await countAuditEvents(db)).toBe(before + 50);
    expect(await countAuditEvents(db, { action: "shop.grant" })).toBeGreaterThanOrEqual(50);
  });

  test("a second paid order finds the book held; the first one's refund grants it by the second", async () => {
    const bookId = await book("Two orders");
    const first = await reconcile(101, bookId, "wc-processing", [line(1)]);
    expect(first.granted).toEqual([
      { orderId: 101, lineItemId: 1, bookId, userUuid: BUYER, activationId: expect.any(Number) },
    ]);
    const activationId = first.granted[0]!.activationId;
    expect((await reconcile(102, bookId, "wc-completed", [line(5)])).granted).toEqual([]);
    expect(await grantsOfOrder(db, 102)).toMatchObject([{ state: "already-held", activationId }]);

    const refund = await reconcile(101, bookId, "wc-refunded", [line(1, 0)]);
    expect(refund.revoked).toEqual([{ orderId: 101, lineItemId: 1, bookId, userUuid: BUYER, activationId }]);
    expect(refund.granted).toEqual([
      { orderId: 102, lineItemId: 5, bookId, userUuid: BUYER, activationId: expect.any(Number) },
    ]);
    expect(await findActivation(db, activationId)).toBeUndefined();
    const regranted = await findActivationOfUser(db, BUYER, bookId);
    expect(regranted).toMatchObject({ id: refund.granted[0]!.activationId, shopOrderId: 102 });
    expect(await grantsOfOrder(db, 101)).toMatchObject([{ state: "revoked", activationId: null }]);
    expect(await grantsOfOrder(db, 102)).toMatchObject([{ state: "active", activationId: regranted!.id }]);
  });

  test("two lines of one book: the second line names the activation the first one made", async () => {
    const bookId = await book("Two lines");
    const applied = await reconcile(103, bookId, "wc-processing", [line(1), line(2)]);
    expect(applied.granted).toHaveLength(1);
    expect(await grantsOfOrder(db, 103)).toMatchObject([
      { lineItemId: 1, state: "active", activationId: applied.granted[0]!.activationId },
      { lineItemId: 2, state: "already-held", activationId: applied.granted[0]!.activationId },
    ]);
  });

  test("an activation that appeared after the plan: the unique index decides, the line is already-held", async () => {
    const bookId = await book("Raced");
    let raced = 0;
    const applied = await reconcile(104, bookId, "wc-processing", [line(1)], async (tx) => {
      raced = (await insertActivation(tx, { bookId, userUuid: BUYER }, now)).id;
    });
    expect(applied.granted).toEqual([]);
    expect(await grantsOfOrder(db, 104)).toMatchObject([{ state: "already-held", activationId: raced }]);
  });
});
