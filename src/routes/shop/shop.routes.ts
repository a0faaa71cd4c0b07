import { defineRoute } from "../../http/define-route";
import { jsonContent } from "../../http/openapi";
import * as schemas from "./shop.schemas";

const tags = ["Shop"];

export const getShopStatus = defineRoute("admin", {
  method: "get",
  path: "/shop/status",
  operationId: "getShopStatus",
  summary: "How the shop's orders are being reconciled",
  tags,
  responses: { 200: jsonContent(schemas.ShopStatus, "The reconciliation's state") },
});

export const syncShop = defineRoute("admin", {
  method: "post",
  path: "/shop/sync",
  operationId: "syncShop",
  summary: "Reconcile the shop's orders now",
  description: "Runs one reconciliation. 404 when SHOP_ORDERS is off.",
  tags,
  errors: ["NOT_FOUND"],
  responses: { 200: jsonContent(schemas.SyncResult, "What this reconciliation did") },
});

export const getShopOrder = defineRoute("admin", {
  method: "get",
  path: "/shop/orders/{orderId}",
  operationId: "getShopOrder",
  summary: "What a shop order granted or revoked",
  description: "404 when the shop has no such order, or SHOP_ORDERS is off.",
  tags,
  request: { params: schemas.OrderIdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: jsonContent(schemas.ShopOrder, "The order and its grants") },
});

export const receiveShopWebhook = defineRoute("public", {
  method: "post",
  path: "/shop/webhook",
  operationId: "receiveShopWebhook",
  summary: "A WooCommerce webhook delivery",
  description:
    "The creation ping (form body `webhook_id=<n>`, unsigned) → 200. A delivery whose X-WC-Webhook-Signature (base64 HMAC-SHA256 of the raw body with SHOP_WEBHOOK_SECRET) is valid → 200 once that order is reconciled from the shop's database (the payload only names the order); a topic other than order.* → 200, ignored; a missing or wrong signature → 401. 404 when SHOP_WEBHOOK_SECRET is unset.",
  tags,
  request: {
    body: {
      required: true,
      description: "WooCommerce's order payload (only its `id` is read), or the creation ping",
      content: {
        // Plain schema objects: the signature is checked on the raw bytes before anything parses them.
        "application/json": { schema: { type: "object" as const } },
        "application/x-www-form-urlencoded": { schema: { type: "object" as const } },
      },
    },
  },
  errors: ["AUTHENTICATION_FAILED", "NOT_FOUND"],
  responses: { 200: jsonContent(schemas.WebhookReceipt, "Received (and the order reconciled)") },
});
