// GET /shop/status: how the reconciliation stands, from the state all instances share.
import type { Deps } from "../deps";
import { readSyncState } from "../repositories/shop-orders";

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

export async function shopStatus(deps: Pick<Deps, "db" | "config" | "clock" | "shop">) {
  const { db, config, clock, shop } = deps;
  const state = await readSyncState(db);
  const startedAt = state?.lastSyncStartedAt;
  return {
    enabled: shop !== undefined,
    orderStorage: shop ? await shop.storage() : null,
    paidStatuses: config.shopPaidStatuses,
    lastSyncAt: iso(state?.lastSyncAt),
    lastSyncOrders: state?.lastSyncOrders ?? 0,
    // Changes older than the start of the last completed sync are in.
    lagSeconds: startedAt
      ? Math.max(0, Math.round((clock.now().getTime() - startedAt.getTime()) / 1000))
      : null,
    webhook: {
      configured: shop !== undefined && config.shopWebhookSecret !== undefined,
      lastDeliveryAt: iso(state?.lastWebhookAt),
    },
  };
}
