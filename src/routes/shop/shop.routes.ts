import { defineRoute } from "../../http/define-route";
import { jsonBody, jsonContent } from "../../http/openapi";
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

export const claimShopOrder = defineRoute("user", {
  method: "post",
  path: "/shop/claim",
  operationId: "claimShopOrder",
  summary: "Claim a guest order with its order key",
  description:
    "A guest order (bought without an account) goes to the signed-in caller who proves it with the order number and its key (from the order e-mail or the order-received page); its books are granted at once while it is paid (an order not paid yet is bound, and grants once it is). The key is compared in constant time. A wrong key, an unknown order, or an order that is not a guest order → 404 NOT_FOUND, the same answer for each. Claimed by another account already → 409 CONFLICT; the same account again → 200. Failed attempts are counted per user and per client address; over the limit → 429 with Retry-After. An e-mail address never grants an order. 404 also when SHOP_ORDERS is off or SHOP_GUEST_ORDERS=ignore.",
  tags,
  request: { body: jsonBody(schemas.ShopClaimInput) },
  errors: ["NOT_FOUND", "CONFLICT", "TOO_MANY_REQUESTS"],
  responses: { 200: jsonContent(schemas.ShopOrder, "The order, bound to the caller, and its grants") },
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
