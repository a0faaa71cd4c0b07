import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import type { Logger } from "../lib/logger";
import { hasShopCustomers, type StoreDirectory } from "../store/directory";
import type { ShopSync } from "./shop-sync";

/**
 * SHOP_ORDERS=on: the reconciliation over the shop's order tables; undefined when off. config.ts
 * already refused `on` without STORE_DRIVER=wordpress, so the store here is the WordPress one.
 */
export async function openShop(
  config: Config,
  deps: { db: Database; clock: Clock; logger: Logger; store: StoreDirectory },
): Promise<ShopSync | undefined> {
  if (!config.shopOrders) return undefined;
  const { store } = deps;
  if (!hasShopCustomers(store) || !config.storeDatabaseUrl)
    throw new Error("SHOP_ORDERS=on requires STORE_DRIVER=wordpress");
  // Loaded only when on, like the WordPress driver itself.
  const [{ WooCommerceOrders }, { ShopSync: Sync }] = await Promise.all([
    import("../store/woocommerce"),
    import("./shop-sync"),
  ]);
  const orders = new WooCommerceOrders({
    url: config.storeDatabaseUrl,
    tablePrefix: config.storeTablePrefix,
  });
  return new Sync({ ...deps, config }, orders, store);
}
