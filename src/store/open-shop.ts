import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import type { ShopCustomers, ShopSync } from "../services/shop-sync";
import type { StoreDirectory } from "./directory";

/**
 * SHOP_ORDERS=on: the reconciliation over the shop's order tables; undefined when off. config.ts
 * already refused `on` without STORE_DRIVER=wordpress, so the store here is the WordPress one.
 */
export async function openShop(
  config: Config,
  deps: { db: Database; clock: Clock; logger: Logger; store: StoreDirectory },
): Promise<ShopSync | undefined> {
  if (!config.shopOrders) return undefined;
  if (deps.store.kind !== "wordpress" || !config.storeDatabaseUrl)
    throw new Error("SHOP_ORDERS=on requires STORE_DRIVER=wordpress");
  // Loaded only when on, like the WordPress driver itself.
  const [{ WooCommerceOrders }, { ShopSync: Sync }] = await Promise.all([
    import("./woocommerce"),
    import("../services/shop-sync"),
  ]);
  const orders = new WooCommerceOrders({
    url: config.storeDatabaseUrl,
    tablePrefix: config.storeTablePrefix,
  });
  return new Sync({ ...deps, config }, orders, deps.store as unknown as ShopCustomers);
}
