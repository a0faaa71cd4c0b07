import { z } from "@hono/zod-openapi";
import { Id, Timestamp, trimmed } from "../../http/openapi";

export const OrderIdParam = z.object({
  orderId: Id.openapi({ param: { name: "orderId", in: "path" }, description: "The WooCommerce order id" }),
});

export const ShopStatus = z
  .object({
    enabled: z.boolean().openapi({ description: "SHOP_ORDERS=on", example: true }),
    orderStorage: z.enum(["hpos", "posts"]).nullable().openapi({
      description: "The shop's authoritative order storage now; null when off or unreachable",
      example: "hpos",
    }),
    paidStatuses: z.array(z.string()).openapi({ example: ["wc-processing", "wc-completed"] }),
    lastSyncAt: Timestamp.nullable().openapi({ description: "When the last reconciliation ended" }),
    lastSyncOrders: z
      .number()
      .int()
      .openapi({ description: "Orders the last reconciliation looked at", example: 12 }),
    lagSeconds: z.number().int().nullable().openapi({
      description: "Seconds since the last completed reconciliation began: older changes are in",
      example: 42,
    }),
    webhook: z.object({
      configured: z.boolean().openapi({ description: "SHOP_WEBHOOK_SECRET is set", example: true }),
      lastDeliveryAt: Timestamp.nullable(),
    }),
  })
  .openapi("ShopStatus");

export const SyncResult = z
  .object({
    ordersSeen: z.number().int().openapi({ example: 12 }),
    granted: z.number().int().openapi({ example: 2 }),
    revoked: z.number().int().openapi({ example: 0 }),
  })
  .openapi("ShopSyncResult");

export const ShopOrder = z
  .object({
    orderId: z.number().int().openapi({ example: 727 }),
    status: z.string().openapi({ example: "wc-completed", description: "As WooCommerce stores it" }),
    paid: z.boolean().openapi({ example: true, description: "Its status is in SHOP_PAID_STATUSES" }),
    userUuid: z.string().nullable().openapi({
      description:
        "The account the order's books go to: its customer, or for a guest order the account that claimed it; null: a guest order nobody has claimed (or not reconciled yet)",
      example: "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91",
    }),
    grants: z.array(
      z.object({
        bookId: z.number().int().openapi({ example: 7 }),
        state: z.enum(["active", "revoked", "already-held", "no-account"]).openapi({
          example: "active",
          description:
            "active: this order's activation; revoked: taken back (refund, cancellation); already-held: the user had the book, nothing made; no-account: a guest order nobody has claimed yet (POST /shop/claim), or a customer without an account",
        }),
        activationId: z.number().int().nullable().openapi({ example: 31 }),
      }),
    ),
    syncedAt: Timestamp.nullable().openapi({ description: "When bookdist last reconciled it; null: never" }),
  })
  .openapi("ShopOrder");

export const WebhookReceipt = z
  .object({ received: z.boolean().openapi({ example: true }) })
  .openapi("ShopWebhookReceipt");

export const ShopClaimInput = z
  .object({
    orderId: Id.openapi({ description: "The order number (WooCommerce's order id)", example: 727 }),
    orderKey: trimmed(100, 1).openapi({
      description:
        "The order's key, as in the order e-mail and the order-received page (`…/order-received/727/?key=wc_order_…`)",
      example: "wc_order_Xq3pL8rT2mVbN",
    }),
  })
  .openapi("ShopClaimInput");
