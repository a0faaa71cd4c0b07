// The rule that turns a shop order into books (README "Shop orders" and "Guest orders"): from what
// the order is now, the grants it made, the account it belongs to and what that account holds, the
// writes that bring its grants to what the order says. Pure: services/shop-apply.ts reads the facts
// in the transaction, under the users' locks, and performs the actions in their order.
import type { ActivationRow } from "../repositories/activations";
import type { GrantFields, ShopOrderGrantRow } from "../repositories/shop-orders";
import type { ShopProductRow } from "../repositories/shop-products";
import type { ShopOrderSnapshot } from "../store/woocommerce";

/** A grant row as the rule reads it. */
export type PlanGrant = Pick<ShopOrderGrantRow, "id" | keyof GrantFields>;
/** An activation as the rule reads it. */
export type PlanActivation = Pick<ActivationRow, "id" | "userUuid" | "bookId" | "shopOrderId" | "qrCodeId">;
type PlanMapping = Pick<ShopProductRow, "productId" | "variationId" | "bookId">;

export interface OrderFacts {
  orderId: number;
  /** The order as the shop holds it now; null when the shop has it no more. */
  snapshot: ShopOrderSnapshot | null;
  /** SHOP_PAID_STATUSES. */
  paidStatuses: readonly string[];
  /** SHOP_GUEST_ORDERS. */
  guestOrders: "claim" | "ignore";
  /** The account that claimed the guest order with its key, if any. */
  claimant: string | null;
  /** The account the order's books go to (its customer, else its claimant), null for none. */
  customer: string | null;
  /** The mappings of the products of the order's lines with a net quantity above 0. */
  mappings: PlanMapping[];
  /** The order's grants, by line and book. */
  grants: PlanGrant[];
  /**
   * The activations the rule may meet: those the grants name, and every activation of the grants'
   * users and the customer of the grants' and the mappings' books.
   */
  activations: PlanActivation[];
  /**
   * Other paid orders' `already-held` grants of those users and books, oldest first: the first
   * grants the book again when this order takes its activation back.
   */
  heldElsewhere: PlanGrant[];
}

/** One order line's one book. */
export interface GrantLine {
  orderId: number;
  lineItemId: number;
  bookId: number;
}

/**
 * The activation an `already-held` row names: one that stood before this reconciliation, or one a
 * `grant` above made (its id is known once applied).
 */
type HeldActivation = number | "granted-above";

export type GrantAction =
  /** An `active` grant goes: its activation taken back (kept if a code was redeemed on it), the row revoked. */
  | { kind: "revoke"; grant: PlanGrant }
  /** An `already-held` grant goes: the row revoked, the activation it found left alone. */
  | { kind: "retire"; grant: PlanGrant }
  /** A `no-account` grant goes: the row deleted. */
  | { kind: "forget"; grant: PlanGrant }
  /** A new activation for the line (this order's or another paid order's): the row `active`. */
  | { kind: "grant"; line: GrantLine; userUuid: string }
  /** The account holds the book already: the row `already-held`, no activation made. */
  | { kind: "held"; line: GrantLine; userUuid: string; activationId: HeldActivation }
  /** Nobody to grant to (a guest order not claimed, a customer whose account is gone). */
  | { kind: "no-account"; line: GrantLine };

export interface GrantPlan {
  actions: GrantAction[];
  /** What the order's record says once applied. */
  order: { status: string; paid: boolean; userUuid: string | null };
}

const keyOf = (grant: { lineItemId: number; bookId: number }) => `${grant.lineItemId}:${grant.bookId}`;

/** The lines' books the order grants now: the mapped books of its lines with a net quantity above 0. */
function wantedBy(
  snapshot: ShopOrderSnapshot,
  mappings: PlanMapping[],
  orderId: number,
): Map<string, GrantLine> {
  const wanted = new Map<string, GrantLine>();
  for (const line of snapshot.lines) {
    if (line.netQuantity <= 0) continue;
    for (const mapping of mappings) {
      if (mapping.productId !== line.productId) continue;
      if (mapping.variationId !== 0 && mapping.variationId !== line.variationId) continue;
      const want = { orderId, lineItemId: line.lineItemId, bookId: mapping.bookId };
      wanted.set(keyOf(want), want);
    }
  }
  return wanted;
}

/**
 * What the order grants now: its mapped lines, plus every grant it already made (a book given, or
 * found already held) while the order is paid and that line keeps a net quantity above 0 —
 * deleting a mapping takes no book away (removeShopProduct).
 */
function grantsThatStay(facts: OrderFacts, paidOrder: ShopOrderSnapshot | null): Map<string, GrantLine> {
  if (!paidOrder) return new Map();
  const stay = wantedBy(paidOrder, facts.mappings, facts.orderId);
  const net = new Map(paidOrder.lines.map((line) => [line.lineItemId, line.netQuantity]));
  for (const grant of facts.grants) {
    if (grant.state !== "active" && grant.state !== "already-held") continue;
    if ((net.get(grant.lineItemId) ?? 0) <= 0) continue;
    stay.set(keyOf(grant), { orderId: facts.orderId, lineItemId: grant.lineItemId, bookId: grant.bookId });
  }
  return stay;
}

/** An activation as the plan goes: one made by a `grant` above has no id yet. */
interface Holding {
  id: HeldActivation;
  userUuid: string;
  bookId: number;
  shopOrderId: number | null;
  qrCodeId: number | null;
}

/**
 * The actions, in the order they must be applied. Revocations come first: a book freed by one
 * line may be granted again by another line or another paid order.
 */
export function planGrants(facts: OrderFacts): GrantPlan {
  const { snapshot, customer } = facts;
  const paid = snapshot !== null && facts.paidStatuses.includes(snapshot.status);
  // SHOP_GUEST_ORDERS=ignore: a guest order nobody claimed grants nothing and waits for no claim.
  const ignored = snapshot?.customerId === 0 && facts.claimant === null && facts.guestOrders === "ignore";
  const stay = grantsThatStay(facts, paid && !ignored ? snapshot : null);

  const holdings: Holding[] = facts.activations.map((a) => ({ ...a }));
  const heldBy = (userUuid: string, bookId: number) =>
    holdings.find((a) => a.userUuid === userUuid && a.bookId === bookId);
  const elsewhere = facts.heldElsewhere.map((g) => ({ ...g }));
  /** The order's rows as the actions so far leave them. */
  const rows = new Map(facts.grants.map((g) => [keyOf(g), { state: g.state, activationId: g.activationId }]));
  const actions: GrantAction[] = [];
  const grant = (line: GrantLine, userUuid: string) => {
    actions.push({ kind: "grant", line, userUuid });
    holdings.push({
      id: "granted-above",
      userUuid,
      bookId: line.bookId,
      shopOrderId: line.orderId,
      qrCodeId: null,
    });
  };

  for (const existing of facts.grants) {
    const keep = stay.has(keyOf(existing)) && existing.userUuid === customer;
    if (keep && existing.state !== "revoked") continue;
    if (existing.state === "active") {
      actions.push({ kind: "revoke", grant: existing });
      takeBack(holdings, existing);
      rows.set(keyOf(existing), { state: "revoked", activationId: null });
      // Another paid order of the account that found the book held by this activation grants it now.
      if (!existing.userUuid || heldBy(existing.userUuid, existing.bookId)) continue;
      const other = elsewhere.find(
        (g) => g.userUuid === existing.userUuid && g.bookId === existing.bookId && g.state === "already-held",
      );
      if (!other) continue;
      other.state = "active";
      grant(
        { orderId: other.orderId, lineItemId: other.lineItemId, bookId: other.bookId },
        existing.userUuid,
      );
    } else if (existing.state === "already-held") {
      actions.push({ kind: "retire", grant: existing });
      rows.set(keyOf(existing), { state: "revoked", activationId: null });
    } else if (existing.state === "no-account") {
      actions.push({ kind: "forget", grant: existing });
      rows.delete(keyOf(existing));
    }
  }

  for (const want of stay.values()) {
    const row = rows.get(keyOf(want));
    if (!customer) {
      actions.push({ kind: "no-account", line: want });
      continue;
    }
    const held = heldBy(customer, want.bookId);
    if (row?.state === "active" && held && held.id === row.activationId) continue;
    if (held) {
      actions.push({ kind: "held", line: want, userUuid: customer, activationId: held.id });
      continue;
    }
    grant(want, customer);
  }

  return { actions, order: { status: snapshot?.status ?? "deleted", paid, userUuid: customer } };
}

/**
 * What revoking does to the grant's activation (repositories/activations.ts deleteShopActivation):
 * deleted while it stands on this order alone, no longer the order's once a code was redeemed on
 * it, untouched when it is not the order's any more.
 */
function takeBack(holdings: Holding[], grant: PlanGrant): void {
  const index = holdings.findIndex((a) => a.id === grant.activationId);
  const activation = holdings[index];
  if (grant.activationId === null || !activation || activation.shopOrderId !== grant.orderId) return;
  if (activation.qrCodeId === null) holdings.splice(index, 1);
  else activation.shopOrderId = null;
}
