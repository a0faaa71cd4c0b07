// POST /shop/claim (claimShopOrder): a guest order's books go to the signed-in account that proves
// the order with its key — never to an account because of its e-mail address (README "Shop orders").
// Wrong guesses are throttled per user and per client address, as code redemption is.
import type { Principal } from "../auth/principal";
import type { Config } from "../config";
import { throttleBucketOf } from "../lib/ip-address";
import { AppError, notFound } from "../lib/problems";
import type { ShopOrderView, ShopSync } from "./shop-sync";
import { type Limits, type Throttle, throttleRules } from "./throttle";

export interface ShopClaimContext {
  config: Config;
  /** undefined: SHOP_ORDERS is off. */
  shop: ShopSync | undefined;
  throttle: Throttle;
  now: Date;
  clientAddress: string;
}

export interface ShopClaimInput {
  orderId: number;
  orderKey: string;
}

export async function claimShopOrder(
  ctx: ShopClaimContext,
  principal: Principal,
  input: ShopClaimInput,
): Promise<ShopOrderView> {
  const { shop } = ctx;
  // Like the other /shop operations when there is nothing to serve: 404, and no guess is counted.
  if (!shop) throw notFound("Shop orders (SHOP_ORDERS is off)");
  if (ctx.config.shopGuestOrders !== "claim")
    throw new AppError("NOT_FOUND", "Guest orders are not claimed here (SHOP_GUEST_ORDERS=ignore).");
  const limits: Limits = [
    [throttleRules.claimFailuresPerUser, principal.userUuid],
    [throttleRules.claimFailuresPerAddress, throttleBucketOf(ctx.clientAddress)],
  ];
  // Only NOT_FOUND is a guess; CONFLICT comes after a right key and costs nothing.
  return ctx.throttle.guard(
    limits,
    ctx.now,
    () => shop.claim(input.orderId, input.orderKey, principal.userUuid),
    ["NOT_FOUND"],
  );
}
