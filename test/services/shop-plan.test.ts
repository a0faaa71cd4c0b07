// The rule of README "Shop orders" and "Guest orders", row by row, without a shop or a database:
// services/shop-plan.ts from an order's facts to the writes of its reconciliation. The same
// scenarios run end to end on MariaDB in test/shop/ (shop-orders.test.ts, guest-claims.test.ts).
import { describe, expect, test } from "bun:test";
import {
  type GrantAction,
  type GrantPlan,
  type OrderFacts,
  type PlanActivation,
  type PlanGrant,
  planGrants,
} from "../../src/services/shop-plan";
import type { OrderLine } from "../../src/store/woocommerce";

const ORDER = 727;
const OTHER_ORDER = 728;
const BUYER = "buyer-uuid";
const CLAIMANT = "claimant-uuid";
const NEW_CUSTOMER = "new-customer-uuid";
const BOOK = 7;
const SECOND_BOOK = 8;
const PRODUCT = 1520;
const SECOND_PRODUCT = 1521;

const line = (lineItemId: number, productId = PRODUCT, more: Partial<OrderLine> = {}): OrderLine => ({
  lineItemId,
  productId,
  variationId: 0,
  netQuantity: 1,
  ...more,
});

let nextGrantId = 1;
const grantRow = (
  state: PlanGrant["state"],
  more: Partial<PlanGrant> & { activationId: number | null },
): PlanGrant => ({
  id: nextGrantId++,
  orderId: ORDER,
  lineItemId: 1,
  bookId: BOOK,
  userUuid: state === "no-account" ? null : BUYER,
  state,
  ...more,
});

const activationRow = (id: number, more: Partial<PlanActivation> = {}): PlanActivation => ({
  id,
  userUuid: BUYER,
  bookId: BOOK,
  shopOrderId: ORDER,
  qrCodeId: null,
  ...more,
});

/** A paid order of BUYER (a shop customer) buying PRODUCT, mapped to BOOK, on line 1. */
function facts(
  more: Partial<OrderFacts> & { status?: string; customerId?: number; lines?: OrderLine[] } = {},
) {
  const { status = "wc-processing", customerId = 42, lines = [line(1)], ...rest } = more;
  return {
    orderId: ORDER,
    snapshot: { orderId: ORDER, status, customerId, lines },
    paidStatuses: ["wc-processing", "wc-completed"],
    guestOrders: "claim",
    claimant: null,
    customer: BUYER,
    mappings: [{ productId: PRODUCT, variationId: 0, bookId: BOOK }],
    grants: [],
    activations: [],
    heldElsewhere: [],
    ...rest,
  } satisfies OrderFacts;
}

const lineOf = (lineItemId: number, bookId = BOOK, orderId = ORDER) => ({ orderId, lineItemId, bookId });

interface Row {
  name: string;
  facts: OrderFacts;
  actions: GrantAction[];
  order?: Partial<GrantPlan["order"]>;
}

const active = grantRow("active", { activationId: 50 });
/** Variation 501 of PRODUCT is SECOND_BOOK; any of its variations is BOOK. */
const variationMappings = [
  { productId: PRODUCT, variationId: 501, bookId: SECOND_BOOK },
  { productId: PRODUCT, variationId: 0, bookId: BOOK },
];
const ownActivation = activationRow(50);

const rows: Row[] = [
  // Paid, not paid.
  {
    name: "a paid order grants its customer the mapped book of each line; an unmapped line nothing",
    facts: facts({ lines: [line(1), line(2, 9999)] }),
    actions: [{ kind: "grant", line: lineOf(1), userUuid: BUYER }],
    order: { status: "wc-processing", paid: true, userUuid: BUYER },
  },
  {
    name: "wc-completed is paid too",
    facts: facts({ status: "wc-completed" }),
    actions: [{ kind: "grant", line: lineOf(1), userUuid: BUYER }],
    order: { paid: true },
  },
  {
    name: "pending grants nothing",
    facts: facts({ status: "wc-pending" }),
    actions: [],
    order: { status: "wc-pending", paid: false, userUuid: BUYER },
  },
  {
    name: "on-hold grants nothing",
    facts: facts({ status: "wc-on-hold" }),
    actions: [],
    order: { paid: false },
  },
  {
    name: "pending → processing: the order that granted nothing grants now",
    facts: facts({ status: "wc-processing" }),
    actions: [{ kind: "grant", line: lineOf(1), userUuid: BUYER }],
  },
  {
    name: "reconciled again: a grant whose activation stands is left as it is",
    facts: facts({ grants: [active], activations: [ownActivation] }),
    actions: [],
  },
  {
    name: "SHOP_PAID_STATUSES decides what is paid",
    facts: facts({ status: "wc-processing", paidStatuses: ["wc-completed"] }),
    actions: [],
    order: { paid: false },
  },

  // Refunds and cancellations.
  {
    name: "a full refund takes the order's activation back",
    facts: facts({
      status: "wc-refunded",
      lines: [line(1, PRODUCT, { netQuantity: 0 })],
      grants: [active],
      activations: [ownActivation],
    }),
    actions: [{ kind: "revoke", grant: active }],
    order: { status: "wc-refunded", paid: false },
  },
  {
    name: "a cancellation after payment takes it back",
    facts: facts({ status: "wc-cancelled", grants: [active], activations: [ownActivation] }),
    actions: [{ kind: "revoke", grant: active }],
    order: { paid: false },
  },
  {
    name: "an order the shop has no more takes it back and belongs to nobody",
    facts: {
      ...facts({ grants: [active], activations: [ownActivation] }),
      snapshot: null,
      customer: null,
      mappings: [],
    },
    actions: [{ kind: "revoke", grant: active }],
    order: { status: "deleted", paid: false, userUuid: null },
  },
  (() => {
    const kept = grantRow("active", { lineItemId: 1, bookId: BOOK, activationId: 50 });
    const refunded = grantRow("active", { lineItemId: 2, bookId: SECOND_BOOK, activationId: 51 });
    return {
      name: "a partial refund of one of two lines to a net 0 revokes that line's book only",
      facts: facts({
        status: "wc-completed",
        lines: [line(1), line(2, SECOND_PRODUCT, { netQuantity: 0 })],
        mappings: [
          { productId: PRODUCT, variationId: 0, bookId: BOOK },
          { productId: SECOND_PRODUCT, variationId: 0, bookId: SECOND_BOOK },
        ],
        grants: [kept, refunded],
        activations: [ownActivation, activationRow(51, { bookId: SECOND_BOOK })],
      }),
      actions: [{ kind: "revoke", grant: refunded }],
      order: { paid: true },
    };
  })(),
  {
    name: "one of two copies refunded (net 1): the line keeps its book",
    facts: facts({
      status: "wc-completed",
      lines: [line(1, PRODUCT, { netQuantity: 1 })],
      grants: [active],
      activations: [ownActivation],
    }),
    actions: [],
  },
  {
    name: "a code redeemed on the order's activation since: revoked, and no other order grants (still held)",
    facts: facts({
      status: "wc-refunded",
      grants: [active],
      activations: [activationRow(50, { qrCodeId: 3 })],
      heldElsewhere: [grantRow("already-held", { orderId: OTHER_ORDER, lineItemId: 5, activationId: 50 })],
    }),
    actions: [{ kind: "revoke", grant: active }],
  },
  {
    name: "a revoked grant of an order paid again grants again",
    facts: facts({ grants: [grantRow("revoked", { activationId: null })] }),
    actions: [{ kind: "grant", line: lineOf(1), userUuid: BUYER }],
  },
  {
    name: "a revoked grant of an order still unpaid stays as it is",
    facts: facts({ status: "wc-refunded", grants: [grantRow("revoked", { activationId: null })] }),
    actions: [],
  },

  // Already held.
  {
    name: "a book held through a QR code: already-held on that activation, none made",
    facts: facts({ activations: [activationRow(40, { shopOrderId: null, qrCodeId: 3 })] }),
    actions: [{ kind: "held", line: lineOf(1), userUuid: BUYER, activationId: 40 }],
  },
  {
    name: "a book held through an admin's activation: already-held on it",
    facts: facts({ activations: [activationRow(41, { shopOrderId: null })] }),
    actions: [{ kind: "held", line: lineOf(1), userUuid: BUYER, activationId: 41 }],
  },
  {
    name: "a book another order of the customer granted: already-held on that order's activation",
    facts: facts({ activations: [activationRow(52, { shopOrderId: OTHER_ORDER })] }),
    actions: [{ kind: "held", line: lineOf(1), userUuid: BUYER, activationId: 52 }],
  },
  (() => {
    const held = grantRow("already-held", { activationId: 40 });
    return {
      name: "the refund of an order that found the book held leaves that activation alone",
      facts: facts({
        status: "wc-refunded",
        grants: [held],
        activations: [activationRow(40, { shopOrderId: null, qrCodeId: 3 })],
      }),
      actions: [{ kind: "retire", grant: held }],
    };
  })(),
  {
    name: "two lines of the same book: the first grants, the second finds it held by the first",
    facts: facts({ lines: [line(1), line(2)] }),
    actions: [
      { kind: "grant", line: lineOf(1), userUuid: BUYER },
      { kind: "held", line: lineOf(2), userUuid: BUYER, activationId: "granted-above" },
    ],
  },
  {
    name: "an active grant whose activation an admin deleted grants again",
    facts: facts({ grants: [grantRow("active", { activationId: null })] }),
    actions: [{ kind: "grant", line: lineOf(1), userUuid: BUYER }],
  },
  {
    name: "an active grant whose activation an admin replaced: already-held on the replacement",
    facts: facts({ grants: [active], activations: [activationRow(60, { shopOrderId: null })] }),
    actions: [{ kind: "held", line: lineOf(1), userUuid: BUYER, activationId: 60 }],
  },

  // Another paid order grants again.
  (() => {
    const older = grantRow("already-held", { orderId: OTHER_ORDER, lineItemId: 5, activationId: 50 });
    const newer = grantRow("already-held", { orderId: OTHER_ORDER + 1, lineItemId: 6, activationId: 50 });
    return {
      name: "a refund re-grants the book by the oldest other paid order that found it held",
      facts: facts({
        status: "wc-refunded",
        grants: [active],
        activations: [ownActivation],
        heldElsewhere: [older, newer],
      }),
      actions: [
        { kind: "revoke", grant: active },
        { kind: "grant", line: lineOf(5, BOOK, OTHER_ORDER), userUuid: BUYER },
      ],
    };
  })(),
  (() => {
    const refunded = grantRow("active", { lineItemId: 1, activationId: 50 });
    const second = grantRow("already-held", { lineItemId: 2, activationId: 50 });
    return {
      name: "a line refunded while another line of the order keeps the book: re-granted elsewhere, the line follows",
      facts: facts({
        lines: [line(1, PRODUCT, { netQuantity: 0 }), line(2)],
        grants: [refunded, second],
        activations: [ownActivation],
        heldElsewhere: [grantRow("already-held", { orderId: OTHER_ORDER, lineItemId: 5, activationId: 50 })],
      }),
      actions: [
        { kind: "revoke", grant: refunded },
        { kind: "grant", line: lineOf(5, BOOK, OTHER_ORDER), userUuid: BUYER },
        { kind: "held", line: lineOf(2), userUuid: BUYER, activationId: "granted-above" },
      ],
    };
  })(),
  {
    name: "no other paid order: the refund only revokes",
    facts: facts({ status: "wc-refunded", grants: [active], activations: [ownActivation] }),
    actions: [{ kind: "revoke", grant: active }],
  },

  // Mappings.
  {
    name: "a deleted mapping keeps the grant while the order is paid and the line's net quantity > 0",
    facts: facts({ status: "wc-completed", mappings: [], grants: [active], activations: [ownActivation] }),
    actions: [],
    order: { paid: true, userUuid: BUYER },
  },
  {
    name: "a deleted mapping: a line refunded to a net 0 still takes its book back",
    facts: facts({
      mappings: [],
      lines: [line(1, PRODUCT, { netQuantity: 0 })],
      grants: [active],
      activations: [ownActivation],
    }),
    actions: [{ kind: "revoke", grant: active }],
  },
  {
    name: "a deleted mapping: leaving the paid statuses takes the book back",
    facts: facts({ status: "wc-cancelled", mappings: [], grants: [active], activations: [ownActivation] }),
    actions: [{ kind: "revoke", grant: active }],
  },
  {
    name: "a deleted mapping keeps a grant that found the book held (recorded again on that activation)",
    facts: facts({
      mappings: [],
      grants: [grantRow("already-held", { activationId: 40 })],
      activations: [activationRow(40, { shopOrderId: null, qrCodeId: 3 })],
    }),
    actions: [{ kind: "held", line: lineOf(1), userUuid: BUYER, activationId: 40 }],
  },
  {
    name: "another variation than the mapped one: only the product's mapping grants",
    facts: facts({ lines: [line(1, PRODUCT, { variationId: 502 })], mappings: variationMappings }),
    actions: [{ kind: "grant", line: lineOf(1, BOOK), userUuid: BUYER }],
  },
  {
    name: "the mapped variation: its own mapping and the product's grant",
    facts: facts({ lines: [line(1, PRODUCT, { variationId: 501 })], mappings: variationMappings }),
    actions: [
      { kind: "grant", line: lineOf(1, SECOND_BOOK), userUuid: BUYER },
      { kind: "grant", line: lineOf(1, BOOK), userUuid: BUYER },
    ],
  },

  // Guest orders.
  {
    name: "a guest order nobody claimed: no-account, nothing granted",
    facts: facts({ customerId: 0, customer: null }),
    actions: [{ kind: "no-account", line: lineOf(1) }],
    order: { userUuid: null, paid: true },
  },
  (() => {
    const waiting = grantRow("no-account", { activationId: null });
    return {
      name: "a guest order claimed with its key: the waiting row goes, the claimant gets the book",
      facts: facts({ customerId: 0, claimant: CLAIMANT, customer: CLAIMANT, grants: [waiting] }),
      actions: [
        { kind: "forget", grant: waiting },
        { kind: "grant", line: lineOf(1), userUuid: CLAIMANT },
      ],
      order: { userUuid: CLAIMANT },
    };
  })(),
  {
    name: "a claimed guest order not paid yet grants nothing, and belongs to its claimant",
    facts: facts({ status: "wc-on-hold", customerId: 0, claimant: CLAIMANT, customer: CLAIMANT }),
    actions: [],
    order: { paid: false, userUuid: CLAIMANT },
  },
  (() => {
    const claimed = grantRow("active", { userUuid: CLAIMANT, activationId: 50 });
    return {
      name: "a refund after the claim revokes the claimant's book",
      facts: facts({
        status: "wc-refunded",
        customerId: 0,
        claimant: CLAIMANT,
        customer: CLAIMANT,
        grants: [claimed],
        activations: [activationRow(50, { userUuid: CLAIMANT })],
      }),
      actions: [{ kind: "revoke", grant: claimed }],
    };
  })(),
  (() => {
    const claimed = grantRow("active", { userUuid: CLAIMANT, activationId: 50 });
    return {
      name: "a customer WooCommerce sets later: the claimant's book goes, the customer gets it",
      facts: facts({
        customerId: 43,
        claimant: CLAIMANT,
        customer: NEW_CUSTOMER,
        grants: [claimed],
        activations: [activationRow(50, { userUuid: CLAIMANT })],
      }),
      actions: [
        { kind: "revoke", grant: claimed },
        { kind: "grant", line: lineOf(1), userUuid: NEW_CUSTOMER },
      ],
      order: { userUuid: NEW_CUSTOMER },
    };
  })(),
  (() => {
    const waiting = grantRow("no-account", { activationId: null });
    return {
      name: "SHOP_GUEST_ORDERS=ignore: a guest order nobody claimed grants nothing, its waiting rows go",
      facts: facts({ customerId: 0, customer: null, guestOrders: "ignore", grants: [waiting] }),
      actions: [{ kind: "forget", grant: waiting }],
      order: { paid: true, userUuid: null },
    };
  })(),
  (() => {
    const claimed = grantRow("active", { userUuid: CLAIMANT, activationId: 50 });
    return {
      name: "SHOP_GUEST_ORDERS=ignore: an order claimed before stays with its account",
      facts: facts({
        customerId: 0,
        claimant: CLAIMANT,
        customer: CLAIMANT,
        guestOrders: "ignore",
        grants: [claimed],
        activations: [activationRow(50, { userUuid: CLAIMANT })],
      }),
      actions: [],
      order: { userUuid: CLAIMANT },
    };
  })(),
  {
    name: "SHOP_GUEST_ORDERS=ignore: a claimed order paid later grants its claimant",
    facts: facts({ customerId: 0, claimant: CLAIMANT, customer: CLAIMANT, guestOrders: "ignore" }),
    actions: [{ kind: "grant", line: lineOf(1), userUuid: CLAIMANT }],
  },
  {
    name: "a customer whose account is gone: the book is taken back, the line waits as no-account",
    facts: facts({ customer: null, grants: [active], activations: [ownActivation] }),
    actions: [
      { kind: "revoke", grant: active },
      { kind: "no-account", line: lineOf(1) },
    ],
    order: { userUuid: null },
  },
];

describe('planGrants: README "Shop orders" and "Guest orders", row by row', () => {
  for (const row of rows) {
    test(row.name, () => {
      const plan = planGrants(row.facts);
      expect(plan.actions).toEqual(row.actions);
      if (row.order) expect(plan.order).toMatchObject(row.order);
    });
  }

  test("the facts are not changed by planning (a plan can be made again)", () => {
    const given = facts({
      status: "wc-refunded",
      grants: [active],
      activations: [ownActivation],
      heldElsewhere: [grantRow("already-held", { orderId: OTHER_ORDER, lineItemId: 5, activationId: 50 })],
    });
    const copy = structuredClone(given);
    const first = planGrants(given);
    expect(given).toEqual(copy);
    expect(planGrants(given)).toEqual(first);
  });
});
