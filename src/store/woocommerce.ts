// SHOP_ORDERS=on: the shop's orders, read (never written) from its WooCommerce tables in the
// WordPress MySQL/MariaDB database (README, Shop orders). Which storage holds them — HPOS
// `wc_orders` or legacy `posts` — is read from wp_options at each sync: a shop may switch at any
// time.

import type { RowDataPacket } from "mysql2/promise";
import { sqlIdentifier } from "../lib/sql-identifier";
import { fromDateTime, ShopDatabase, type SqlValue, toDateTime } from "./shop-database";

export type OrderStorage = "hpos" | "posts";

/** One line_item of an order, with what refunds took off it. */
export interface OrderLine {
  lineItemId: number;
  productId: number;
  /** 0: not a variation. */
  variationId: number;
  /** The quantity bought plus the (negative) quantities refunded against this line. */
  netQuantity: number;
}

/** An order as the shop holds it now: the only input reconciliation trusts. */
export interface ShopOrderSnapshot {
  orderId: number;
  /** As stored: `wc-processing`, `trash`, … */
  status: string;
  /** 0: a guest order. */
  customerId: number;
  lines: OrderLine[];
}

/** An order (or one of its refunds) changed at `modifiedAt`: a row of the incremental scan. */
export interface ChangedOrder {
  orderId: number;
  modifiedAt: Date;
  /** The row's own id (a refund's, for a refund): the scan's keyset tie-breaker. */
  rowId: number;
}

export interface WooCommerceOrdersOptions {
  url: string;
  tablePrefix: string;
}

const LINE_META_KEYS = ["_product_id", "_variation_id", "_qty", "_refunded_item_id"];

/**
 * Every statement the reader sends, by name: one place, so that bench/shop-explain.ts EXPLAINs
 * exactly these. `prefix` has passed sqlIdentifier.
 */
export function orderQueries(prefix: string) {
  const t = (name: string) => `\`${prefix}${name}\``;
  const list = (n: number) => Array.from({ length: n }, () => "?").join(", ");
  return {
    storageOption: `SELECT option_value FROM ${t("options")} WHERE option_name = 'woocommerce_custom_orders_table_enabled'`,
    hposProbe:
      "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
    // Refunds answer for their parent order; (modified, row id) is the keyset.
    changedHpos: (limit: number) =>
      `SELECT id AS row_id, IF(type = 'shop_order_refund', parent_order_id, id) AS order_id,
         date_updated_gmt AS modified
       FROM ${t("wc_orders")}
       WHERE date_updated_gmt >= ? AND (date_updated_gmt > ? OR id > ?)
         AND type IN ('shop_order', 'shop_order_refund')
       ORDER BY date_updated_gmt, id LIMIT ${Number(limit)}`,
    changedPosts: (limit: number) =>
      `SELECT ID AS row_id, IF(post_type = 'shop_order_refund', post_parent, ID) AS order_id,
         post_modified_gmt AS modified
       FROM ${t("posts")}
       WHERE post_type IN ('shop_order', 'shop_order_refund')
         AND post_modified_gmt >= ? AND (post_modified_gmt > ? OR ID > ?)
       ORDER BY post_modified_gmt, ID LIMIT ${Number(limit)}`,
    hposOrder: `SELECT status, customer_id FROM ${t("wc_orders")} WHERE id = ? AND type = 'shop_order'`,
    hposRefunds: `SELECT id FROM ${t("wc_orders")} WHERE parent_order_id = ? AND type = 'shop_order_refund'`,
    postsOrder: `SELECT post_status FROM ${t("posts")} WHERE ID = ? AND post_type = 'shop_order'`,
    postsMeta: `SELECT meta_key, meta_value FROM ${t("postmeta")}
       WHERE post_id = ? AND meta_key = '_customer_user' ORDER BY meta_id`,
    postsRefunds: `SELECT ID FROM ${t("posts")} WHERE post_parent = ? AND post_type = 'shop_order_refund'`,
    // The order key (`wc_order_…`) a guest proves an order with (claimShopOrder); indexed in HPOS by order_id.
    hposOrderKey: `SELECT order_key FROM ${t("wc_order_operational_data")} WHERE order_id = ? ORDER BY id LIMIT 1`,
    postsOrderKey: `SELECT meta_value AS order_key FROM ${t("postmeta")}
       WHERE post_id = ? AND meta_key = '_order_key' ORDER BY meta_id LIMIT 1`,
    lines: (orders: number) =>
      `SELECT i.order_item_id, i.order_id, m.meta_key, m.meta_value
       FROM ${t("woocommerce_order_items")} i
       JOIN ${t("woocommerce_order_itemmeta")} m ON m.order_item_id = i.order_item_id
       WHERE i.order_id IN (${list(orders)}) AND i.order_item_type = 'line_item'
         AND m.meta_key IN (${list(LINE_META_KEYS.length)})
       ORDER BY i.order_item_id, m.meta_id`,
  };
}

export class WooCommerceOrders {
  private readonly shop: ShopDatabase;
  private readonly prefix: string;
  private readonly sql: ReturnType<typeof orderQueries>;

  constructor(options: WooCommerceOrdersOptions) {
    // The prefix is the only text ever put into SQL; config.ts checks it, and so does this.
    this.prefix = sqlIdentifier(options.tablePrefix, "The store table prefix");
    this.sql = orderQueries(this.prefix);
    // Reconciliation reads one order at a time: a few connections are plenty.
    this.shop = new ShopDatabase({ url: options.url, reader: "shop", connectionLimit: 4, queueLimit: 50 });
  }

  /** Each statement on a connection of its own: reading an order needs no session state. */
  private rows<T extends RowDataPacket>(sql: string, values: SqlValue[] = []): Promise<T[]> {
    return this.shop.rows<T>(sql, values);
  }

  /**
   * The authoritative storage: `woocommerce_custom_orders_table_enabled = 'yes'` means HPOS, anything
   * else (or no row) the posts. An old shop may have the option but no wc_orders table: probed.
   */
  async storage(): Promise<OrderStorage> {
    const [option] = await this.rows<RowDataPacket>(this.sql.storageOption);
    if (String(option?.option_value ?? "") !== "yes") return "posts";
    const [probe] = await this.rows<RowDataPacket>(this.sql.hposProbe, [`${this.prefix}wc_orders`]);
    return Number(probe?.n) > 0 ? "hpos" : "posts";
  }

  /** The database server's clock (UTC): the scan's cursor is in its time, not ours. */
  async now(): Promise<Date> {
    const [row] = await this.rows<RowDataPacket>("SELECT UTC_TIMESTAMP() AS now");
    return fromDateTime(String(row?.now));
  }

  /**
   * Orders and refunds modified at or after `since`, after the keyset (`afterAt`, `afterRowId`), in
   * (modified, row id) order; a refund answers for its parent order. The updated-at column is
   * indexed in HPOS (date_updated); the posts have no index on post_modified_gmt, so their scan
   * walks type_status_date (bench/shop-explain.ts).
   */
  async changedSince(
    storage: OrderStorage,
    since: Date,
    after: { at: Date; rowId: number } | undefined,
    limit: number,
  ): Promise<ChangedOrder[]> {
    const from = toDateTime(after?.at ?? since);
    const afterId = after?.rowId ?? 0;
    const sql = storage === "hpos" ? this.sql.changedHpos(limit) : this.sql.changedPosts(limit);
    const rows = await this.rows<RowDataPacket>(sql, [from, from, afterId]);
    return rows.map((row) => ({
      orderId: Number(row.order_id),
      rowId: Number(row.row_id),
      modifiedAt: fromDateTime(String(row.modified)),
    }));
  }

  /** The order as the shop holds it now, or null when there is no such order (deleted, or never). */
  async read(storage: OrderStorage, orderId: number): Promise<ShopOrderSnapshot | null> {
    const head = storage === "hpos" ? await this.hposHead(orderId) : await this.postsHead(orderId);
    if (!head) return null;
    const lines = await this.lines([orderId, ...head.refundIds], orderId);
    return {
      orderId,
      status: head.status,
      customerId: head.customerId,
      lines,
    };
  }

  /**
   * The order's key as the shop stores it (HPOS `wc_order_operational_data.order_key`, legacy meta
   * `_order_key`), or null when it has none. A secret of the buyer's: compared, never logged.
   */
  async orderKey(storage: OrderStorage, orderId: number): Promise<string | null> {
    const sql = storage === "hpos" ? this.sql.hposOrderKey : this.sql.postsOrderKey;
    const [row] = await this.rows<RowDataPacket>(sql, [orderId]);
    const key = row?.order_key;
    return typeof key === "string" && key !== "" ? key : null;
  }

  private async hposHead(orderId: number) {
    const [order] = await this.rows<RowDataPacket>(this.sql.hposOrder, [orderId]);
    if (!order) return null;
    const refunds = await this.rows<RowDataPacket>(this.sql.hposRefunds, [orderId]);
    return {
      status: String(order.status ?? ""),
      customerId: Number(order.customer_id ?? 0),
      refundIds: refunds.map((row) => Number(row.id)),
    };
  }

  private async postsHead(orderId: number) {
    const [order] = await this.rows<RowDataPacket>(this.sql.postsOrder, [orderId]);
    if (!order) return null;
    const meta = await this.rows<RowDataPacket>(this.sql.postsMeta, [orderId]);
    const first = (key: string) => meta.find((row) => row.meta_key === key)?.meta_value;
    const refunds = await this.rows<RowDataPacket>(this.sql.postsRefunds, [orderId]);
    return {
      status: String(order.post_status),
      customerId: Number(first("_customer_user") ?? 0) || 0,
      refundIds: refunds.map((row) => Number(row.ID)),
    };
  }

  /**
   * The order's line items (the same tables under both storages) with each line's net quantity:
   * its `_qty` plus the negative `_qty` of refund lines whose `_refunded_item_id` names it.
   */
  private async lines(orderIds: number[], orderId: number): Promise<OrderLine[]> {
    const rows = await this.rows<RowDataPacket>(this.sql.lines(orderIds.length), [
      ...orderIds,
      ...LINE_META_KEYS,
    ]);
    const items = new Map<number, { orderId: number; meta: Map<string, string> }>();
    for (const row of rows) {
      const id = Number(row.order_item_id);
      let item = items.get(id);
      if (!item) {
        item = { orderId: Number(row.order_id), meta: new Map() };
        items.set(id, item);
      }
      if (!item.meta.has(row.meta_key)) item.meta.set(String(row.meta_key), String(row.meta_value ?? ""));
    }
    const lines = new Map<number, OrderLine>();
    for (const [id, item] of items) {
      if (item.orderId !== orderId) continue;
      lines.set(id, {
        lineItemId: id,
        productId: Number(item.meta.get("_product_id") ?? 0) || 0,
        variationId: Number(item.meta.get("_variation_id") ?? 0) || 0,
        netQuantity: Number(item.meta.get("_qty") ?? 0) || 0,
      });
    }
    for (const item of items.values()) {
      if (item.orderId === orderId) continue;
      const line = lines.get(Number(item.meta.get("_refunded_item_id") ?? 0));
      if (line) line.netQuantity += Number(item.meta.get("_qty") ?? 0) || 0;
    }
    return [...lines.values()];
  }

  close(): Promise<void> {
    return this.shop.close();
  }
}
