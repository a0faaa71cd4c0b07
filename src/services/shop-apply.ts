// The step that carries out services/shop-plan.ts inside the order's transaction: reads the facts
// the rule needs once the users are locked, and performs its actions in their order. The grants
// and revocations it made are returned, to be reported once the transaction committed.
import type { Database } from "#db";
import {
  activationsOfShopOrder,
  deleteShopActivation,
  findActivationOfUser,
  insertShopActivation,
} from "../repositories/activations";
import * as orders from "../repositories/shop-orders";
import { recordAudit, shopSource } from "./audit";
import type { GrantEvent } from "./shop-grants";
import type { GrantAction, GrantLine, OrderFacts, PlanGrant } from "./shop-plan";

export interface Applied {
  granted: GrantEvent[];
  revoked: GrantEvent[];
}

/**
 * The order's grants and what its users hold, read after locking those users (Postgres: one
 * transaction at a time touches a user's shop activations, since taking one back may grant
 * another order's line). `customer`: the account the order's books go to now.
 */
export async function readOrderFacts(
  tx: Database,
  orderId: number,
  customer: string | null,
  bookIds: number[],
): Promise<Pick<OrderFacts, "grants" | "activations" | "heldElsewhere">> {
  const grants = await orders.grantsOfOrder(tx, orderId);
  const users = [
    ...new Set([customer, ...grants.map((g) => g.userUuid)].filter((u): u is string => !!u)),
  ].sort();
  for (const uuid of users) await orders.lockUser(tx, uuid);
  const books = [...new Set([...bookIds, ...grants.map((g) => g.bookId)])];
  const named = grants.map((g) => g.activationId).filter((id): id is number => id !== null);
  return {
    grants,
    activations: await activationsOfShopOrder(tx, named, users, books),
    heldElsewhere: await orders.heldElsewhere(tx, users, books, orderId),
  };
}

export async function applyGrantPlan(tx: Database, actions: GrantAction[], now: Date): Promise<Applied> {
  const applied: Applied = { granted: [], revoked: [] };
  for (const action of actions) {
    switch (action.kind) {
      case "revoke":
        await revoke(tx, action.grant, now, applied);
        break;
      case "retire":
        await orders.upsertGrant(
          tx,
          { ...fieldsOf(action.grant), activationId: null, state: "revoked" },
          now,
        );
        break;
      case "forget":
        await orders.deleteGrant(tx, action.grant.id);
        break;
      case "grant":
        await grant(tx, { ...action.line, userUuid: action.userUuid }, now, applied);
        break;
      case "held": {
        const activationId =
          action.activationId === "granted-above"
            ? ((await findActivationOfUser(tx, action.userUuid, action.line.bookId))?.id ?? null)
            : action.activationId;
        await orders.upsertGrant(
          tx,
          { ...action.line, userUuid: action.userUuid, activationId, state: "already-held" },
          now,
        );
        break;
      }
      case "no-account":
        await orders.upsertGrant(
          tx,
          { ...action.line, userUuid: null, activationId: null, state: "no-account" },
          now,
        );
        break;
    }
  }
  return applied;
}

function fieldsOf(grant: PlanGrant): orders.GrantFields {
  const { orderId, lineItemId, bookId, userUuid, activationId, state } = grant;
  return { orderId, lineItemId, bookId, userUuid, activationId, state };
}

/** A new activation; the unique (user, book) index may still find the book held (a racing redemption). */
async function grant(tx: Database, line: GrantLine & { userUuid: string }, now: Date, applied: Applied) {
  const activation = await insertShopActivation(
    tx,
    { bookId: line.bookId, userUuid: line.userUuid, shopOrderId: line.orderId },
    now,
  );
  if (!activation) {
    const held = await findActivationOfUser(tx, line.userUuid, line.bookId);
    await orders.upsertGrant(tx, { ...line, activationId: held?.id ?? null, state: "already-held" }, now);
    return;
  }
  await orders.upsertGrant(tx, { ...line, activationId: activation.id, state: "active" }, now);
  await recordShopEvent(tx, "shop.grant", activation.id, line, now);
  applied.granted.push({ ...line, activationId: activation.id });
}

/** Takes back what the grant made: a revocation only when its activation is deleted. */
async function revoke(tx: Database, grant: PlanGrant, now: Date, applied: Applied) {
  const { activationId } = grant;
  if (
    activationId !== null &&
    (await deleteShopActivation(tx, activationId, grant.orderId, now)) === "deleted"
  ) {
    await recordShopEvent(tx, "shop.revoke", activationId, grant, now);
    applied.revoked.push({
      orderId: grant.orderId,
      lineItemId: grant.lineItemId,
      bookId: grant.bookId,
      userUuid: grant.userUuid ?? "",
      activationId,
    });
  }
  await orders.upsertGrant(tx, { ...fieldsOf(grant), activationId: null, state: "revoked" }, now);
}

/**
 * One event per activation the shop made or took back (README "Audit log"), never one per order
 * seen: the actor is the shop, the order and its line are named.
 */
function recordShopEvent(
  tx: Database,
  action: "shop.grant" | "shop.revoke",
  activationId: number,
  line: { orderId: number; lineItemId: number; bookId: number; userUuid: string | null },
  now: Date,
): Promise<void> {
  const pair = <T>(value: T): [T | null, T | null] =>
    action === "shop.grant" ? [null, value] : [value, null];
  return recordAudit(tx, {
    by: shopSource,
    at: now,
    action,
    target: { type: "activation", id: activationId },
    changes: {
      bookId: pair(line.bookId),
      userUuid: pair(line.userUuid),
      shopOrderId: pair(line.orderId),
      lineItemId: pair(line.lineItemId),
    },
  });
}
