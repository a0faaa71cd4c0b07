// A WooCommerce order key (`wc_order_…`, in the buyer's order e-mail and on the order-received
// page) is what proves a guest order is yours (claimShopOrder): compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/** Digests of equal length whatever was typed; an order without a key is compared all the same and never matches. */
export function orderKeyMatches(stored: string | null, typed: string): boolean {
  const same = timingSafeEqual(digest(stored ?? randomBytes(16).toString("hex")), digest(typed));
  return same && stored !== null;
}
