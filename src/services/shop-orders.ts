// What the console shows of the shop's orders beside their status (README "Console", /console/shop):
// the grants bookdist recorded for them, newest first, a page at a time. One order with its items
// and grants is ShopSync.view, as GET /shop/orders/{orderId} shows it.
import type { Database } from "#db";
import { latestGrants, type ShopOrderGrantRow } from "../repositories/shop-orders";

export type { ShopOrderGrantRow } from "../repositories/shop-orders";

/**
 * One page of the latest shop grants (`page` from 0, `size` rows) and whether an older page
 * follows: read one row more than the page instead of counting the table.
 */
export async function recentShopGrants(
  db: Database,
  page: number,
  size: number,
): Promise<{ rows: ShopOrderGrantRow[]; hasNext: boolean }> {
  const rows = await latestGrants(db, size + 1, page * size);
  return { rows: rows.slice(0, size), hasNext: rows.length > size };
}
