import { clientAddressOf } from "../../http/client-address";
import type { AppRouteHandler } from "../../http/types";
import { notFound } from "../../lib/problems";
import { claimShopOrder as claimGuestOrder } from "../../services/shop-claim";
import { shopStatus } from "../../services/shop-status";
import type { ShopOrderView } from "../../services/shop-sync";
import { readDelivery } from "../../services/shop-webhook";
import type * as routes from "./shop.routes";

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

export const getShopStatus: AppRouteHandler<typeof routes.getShopStatus> = async (c) => {
  return c.json(await shopStatus(c.get("deps")), 200);
};

const shopOff = () => notFound("Shop orders (SHOP_ORDERS is off)");

export const syncShop: AppRouteHandler<typeof routes.syncShop> = async (c) => {
  const { shop } = c.get("deps");
  if (!shop) throw shopOff();
  return c.json(await shop.sync(), 200);
};

export const getShopOrder: AppRouteHandler<typeof routes.getShopOrder> = async (c) => {
  const { shop } = c.get("deps");
  if (!shop) throw shopOff();
  const { orderId } = c.req.valid("param");
  const order = await shop.view(orderId);
  if (!order) throw notFound(`Order ${orderId} of the shop`);
  return c.json(toShopOrder(order), 200);
};

export const claimShopOrder: AppRouteHandler<typeof routes.claimShopOrder> = async (c) => {
  const { shop, config, clock } = c.get("deps");
  const order = await claimGuestOrder(
    {
      shop,
      config,
      throttle: c.get("runtime").throttle,
      now: clock.now(),
      clientAddress: clientAddressOf(c),
    },
    c.get("principal"),
    c.req.valid("json"),
  );
  return c.json(toShopOrder(order), 200);
};

/** GET /shop/orders/{orderId} and POST /shop/claim answer the same shape. */
function toShopOrder(order: ShopOrderView) {
  return {
    orderId: order.orderId,
    status: order.status,
    paid: order.paid,
    userUuid: order.userUuid,
    grants: order.grants.map((grant) => ({
      bookId: grant.bookId,
      state: grant.state,
      activationId: grant.activationId,
    })),
    syncedAt: iso(order.syncedAt),
  };
}

export const receiveShopWebhook: AppRouteHandler<typeof routes.receiveShopWebhook> = async (c) => {
  const { shop, config } = c.get("deps");
  const secret = config.shopWebhookSecret;
  if (!shop || secret === undefined) throw notFound("The shop webhook (SHOP_WEBHOOK_SECRET is unset)");
  // The body's bytes as received (a BOM, even invalid UTF-8, are signed too), read and bounded by
  // the route's body middleware (define-route.ts) before any decoding.
  const body = new Uint8Array(await c.req.arrayBuffer());
  const delivery = readDelivery(
    body,
    { signature: c.req.header("x-wc-webhook-signature"), topic: c.req.header("x-wc-webhook-topic") },
    secret,
  );
  if (delivery.kind === "order") {
    await shop.noteWebhook();
    await shop.reconcileNow(delivery.orderId);
  }
  return c.json({ received: true }, 200);
};
