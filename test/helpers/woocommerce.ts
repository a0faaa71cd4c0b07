// A WooCommerce shop's orders written the way WooCommerce writes them (README, Shop orders), into a
// WordPress database of test/helpers/wordpress.ts loaded with test/fixtures/woocommerce/schema.sql:
// HPOS (wc_orders, addresses, operational data, a placeholder post reserving the id) or legacy posts
// (a shop_order post and its postmeta); line items and their meta in the shared item tables;
// refunds as child orders whose line items carry negative quantities and _refunded_item_id; each
// change bumping the order's updated-at column. Only the tests write these tables; bookdist reads.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Connection, ResultSetHeader, RowDataPacket } from "mysql2/promise";

export const woocommerceSchema = join(import.meta.dir, "..", "fixtures", "woocommerce", "schema.sql");

export type Storage = "hpos" | "posts";

export interface LineInput {
  productId: number;
  variationId?: number;
  qty?: number;
  name?: string;
}

export interface OrderInput {
  /** 0: a guest. */
  customerId: number;
  billingEmail: string;
  status?: string;
  lines: LineInput[];
}

export interface WrittenOrder {
  orderId: number;
  lineItemIds: number[];
  /** The order key WooCommerce puts in the order e-mail and the order-received URL. */
  orderKey: string;
}

/** wc_generate_order_key(): `wc_order_` and 13 letters and digits (wp_generate_password(13, false)). */
function newOrderKey(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(13));
  return `wc_order_${Array.from(bytes, (byte) => alphabet[byte % alphabet.length]).join("")}`;
}

/** Loads WooCommerce's tables into the (already WordPress-loaded) database `admin` is using. */
export async function loadWooCommerceSchema(admin: Connection): Promise<void> {
  await admin.query("SET SESSION sql_mode = ''");
  await admin.query(readFileSync(woocommerceSchema, "utf8"));
}

export class WooShop {
  constructor(
    private readonly admin: Connection,
    private readonly prefix = "wp_",
  ) {}

  private t(name: string): string {
    return `\`${this.prefix}${name}\``;
  }

  private async run(sql: string, values: unknown[] = []): Promise<ResultSetHeader> {
    const [result] = await this.admin.query<ResultSetHeader>(sql, values);
    return result;
  }

  private async rows(sql: string, values: unknown[] = []): Promise<RowDataPacket[]> {
    const [rows] = await this.admin.query<RowDataPacket[]>(sql, values);
    return rows;
  }

  /** Which storage is authoritative (the option WooCommerce's settings page writes), and whether the other is kept in sync. */
  async setStorage(storage: Storage, syncOn = false): Promise<void> {
    await this.setOption("woocommerce_custom_orders_table_enabled", storage === "hpos" ? "yes" : "no");
    await this.setOption("woocommerce_custom_orders_table_data_sync_enabled", syncOn ? "yes" : "no");
  }

  private async setOption(name: string, value: string): Promise<void> {
    await this.run(
      `INSERT INTO ${this.t("options")} (option_name, option_value, autoload) VALUES (?, ?, 'yes')
       ON DUPLICATE KEY UPDATE option_value = VALUES(option_value)`,
      [name, value],
    );
  }

  async storage(): Promise<Storage> {
    const [row] = await this.rows(
      `SELECT option_value FROM ${this.t("options")} WHERE option_name = 'woocommerce_custom_orders_table_enabled'`,
    );
    return row?.option_value === "yes" ? "hpos" : "posts";
  }

  /** A checkout: the order in the authoritative storage (and, with `alsoIn`, a copy in the other). */
  async createOrder(input: OrderInput, alsoIn?: Storage): Promise<WrittenOrder> {
    const storage = await this.storage();
    const status = input.status ?? "wc-pending";
    const orderKey = newOrderKey();
    const orderId = await this.reserveId(
      storage === "hpos" ? "shop_order_placehold" : "shop_order",
      status,
      0,
    );
    for (const where of new Set<Storage>([storage, ...(alsoIn ? [alsoIn] : [])])) {
      if (where === "hpos")
        await this.writeHposOrder(
          orderId,
          "shop_order",
          status,
          input.customerId,
          input.billingEmail,
          0,
          orderKey,
        );
      else
        await this.writePostsOrder(
          orderId,
          "shop_order",
          status,
          input.customerId,
          input.billingEmail,
          0,
          storage === "posts",
          orderKey,
        );
    }
    const lineItemIds: number[] = [];
    for (const line of input.lines) {
      lineItemIds.push(
        await this.writeLine(orderId, line.name ?? `Product ${line.productId}`, {
          _product_id: line.productId,
          _variation_id: line.variationId ?? 0,
          _qty: line.qty ?? 1,
          _tax_class: "",
          _line_subtotal: "10.00",
          _line_total: "10.00",
        }),
      );
    }
    return { orderId, lineItemIds, orderKey };
  }

  /** A status change ($order->set_status()->save()): the status and the updated-at column, in each storage holding the order. */
  async setStatus(orderId: number, status: string): Promise<void> {
    await this.run(
      `UPDATE ${this.t("wc_orders")} SET status = ?, date_updated_gmt = UTC_TIMESTAMP() WHERE id = ?`,
      [status, orderId],
    );
    await this.run(
      `UPDATE ${this.t("posts")} SET post_status = ?, post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP()
       WHERE ID = ? AND post_type = 'shop_order'`,
      [status, orderId],
    );
  }

  /**
   * wc_create_refund(): a child order of type shop_order_refund (status wc-completed) whose line
   * items have negative `_qty` and `_refunded_item_id`; the parent is saved (updated-at bumped) and,
   * when `full`, set to wc-refunded.
   */
  async refund(orderId: number, lines: { lineItemId: number; qty: number }[], full = false): Promise<number> {
    const storage = await this.storage();
    const refundId = await this.reserveId(
      storage === "hpos" ? "shop_order_placehold" : "shop_order_refund",
      "wc-completed",
      orderId,
    );
    if (storage === "hpos")
      await this.writeHposOrder(refundId, "shop_order_refund", "wc-completed", 0, "", orderId, "");
    else await this.writePostsOrder(refundId, "shop_order_refund", "wc-completed", 0, "", orderId, true, "");
    for (const line of lines) {
      await this.writeLine(refundId, "Refunded item", {
        _product_id: 0,
        _variation_id: 0,
        _qty: -Math.abs(line.qty),
        _refunded_item_id: line.lineItemId,
        _line_total: "-10.00",
      });
    }
    if (full) await this.setStatus(orderId, "wc-refunded");
    else await this.setStatus(orderId, await this.statusOf(orderId));
    return refundId;
  }

  /**
   * The order's customer set afterwards (an admin assigning a guest order to an account, or
   * wc_update_new_customer_past_orders()): customer_id / _customer_user, updated-at bumped.
   */
  async setCustomer(orderId: number, customerId: number): Promise<void> {
    await this.run(
      `UPDATE ${this.t("wc_orders")} SET customer_id = ?, date_updated_gmt = UTC_TIMESTAMP() WHERE id = ?`,
      [customerId, orderId],
    );
    await this.run(
      `UPDATE ${this.t("postmeta")} SET meta_value = ? WHERE post_id = ? AND meta_key = '_customer_user'`,
      [String(customerId), orderId],
    );
    await this.run(
      `UPDATE ${this.t("posts")} SET post_modified = NOW(), post_modified_gmt = UTC_TIMESTAMP()
       WHERE ID = ? AND post_type = 'shop_order'`,
      [orderId],
    );
  }

  async statusOf(orderId: number): Promise<string> {
    const storage = await this.storage();
    const [row] =
      storage === "hpos"
        ? await this.rows(`SELECT status FROM ${this.t("wc_orders")} WHERE id = ?`, [orderId])
        : await this.rows(`SELECT post_status AS status FROM ${this.t("posts")} WHERE ID = ?`, [orderId]);
    return String(row?.status);
  }

  /**
   * WooCommerce's migration to HPOS (the data sync copying every post order and refund into
   * wc_orders with the same ids and dates), then the switch of the authoritative storage.
   */
  async migrateToHpos(): Promise<void> {
    const posts = await this.rows(
      `SELECT ID, post_type, post_status, post_parent, post_date_gmt, post_modified_gmt FROM ${this.t("posts")}
       WHERE post_type IN ('shop_order', 'shop_order_refund')`,
    );
    for (const post of posts) {
      const meta = await this.rows(
        `SELECT meta_key, meta_value FROM ${this.t("postmeta")} WHERE post_id = ? AND meta_key IN ('_customer_user', '_billing_email', '_order_key')`,
        [post.ID],
      );
      const value = (key: string) => meta.find((row) => row.meta_key === key)?.meta_value ?? "";
      await this.run(
        `INSERT INTO ${this.t("wc_orders")} (id, status, currency, type, total_amount, customer_id, billing_email,
           date_created_gmt, date_updated_gmt, parent_order_id)
         VALUES (?, ?, 'EUR', ?, 10, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE status = VALUES(status), type = VALUES(type), customer_id = VALUES(customer_id),
           billing_email = VALUES(billing_email), date_updated_gmt = VALUES(date_updated_gmt),
           parent_order_id = VALUES(parent_order_id)`,
        [
          post.ID,
          post.post_status,
          post.post_type,
          Number(value("_customer_user")) || 0,
          value("_billing_email") || null,
          post.post_date_gmt,
          post.post_modified_gmt,
          post.post_parent,
        ],
      );
      if (post.post_type === "shop_order" && value("_order_key")) {
        await this.run(`DELETE FROM ${this.t("wc_order_operational_data")} WHERE order_id = ?`, [post.ID]);
        await this.run(
          `INSERT INTO ${this.t("wc_order_operational_data")} (order_id, created_via, order_key) VALUES (?, 'checkout', ?)`,
          [post.ID, value("_order_key")],
        );
      }
    }
    await this.setStorage("hpos", true);
  }

  /** wp_insert_post() of the order's post (legacy) or its placeholder (HPOS): WordPress's id sequence. */
  private async reserveId(postType: string, status: string, parent: number): Promise<number> {
    const result = await this.run(
      `INSERT INTO ${this.t("posts")} (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt,
         post_status, comment_status, ping_status, post_password, post_name, to_ping, pinged, post_modified,
         post_modified_gmt, post_content_filtered, post_parent, guid, menu_order, post_type, post_mime_type, comment_count)
       VALUES (1, NOW(), UTC_TIMESTAMP(), '', ?, '', ?, 'closed', 'closed', '', '', '', '', NOW(), UTC_TIMESTAMP(), '', ?,
         '', 0, ?, '', 0)`,
      [`Order &ndash; ${new Date().toISOString()}`, status, parent, postType],
    );
    return result.insertId;
  }

  private async writeHposOrder(
    id: number,
    type: string,
    status: string,
    customerId: number,
    email: string,
    parent: number,
    orderKey: string,
  ): Promise<void> {
    await this.run(
      `INSERT INTO ${this.t("wc_orders")} (id, status, currency, type, tax_amount, total_amount, customer_id,
         billing_email, date_created_gmt, date_updated_gmt, parent_order_id, payment_method, payment_method_title)
       VALUES (?, ?, 'EUR', ?, 0, 10, ?, ?, UTC_TIMESTAMP(), UTC_TIMESTAMP(), ?, 'bacs', 'Direct bank transfer')`,
      [id, status, type, customerId, email || null, parent],
    );
    if (type !== "shop_order") return;
    await this.run(
      `INSERT INTO ${this.t("wc_order_addresses")} (order_id, address_type, first_name, last_name, email)
       VALUES (?, 'billing', 'Test', 'Buyer', ?)`,
      [id, email],
    );
    await this.run(
      `INSERT INTO ${this.t("wc_order_operational_data")} (order_id, created_via, woocommerce_version, order_key,
         prices_include_tax, download_permission_granted)
       VALUES (?, 'checkout', '9.4.0', ?, 0, 0)`,
      [id, orderKey],
    );
  }

  private async writePostsOrder(
    id: number,
    type: string,
    status: string,
    customerId: number,
    email: string,
    parent: number,
    reserved: boolean,
    orderKey: string,
  ): Promise<void> {
    // The post exists when it reserved the id; as a sync copy of an HPOS order it is written now.
    if (!reserved) {
      await this.run(
        `INSERT INTO ${this.t("posts")} (ID, post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt,
           post_status, post_modified, post_modified_gmt, post_content_filtered, post_parent, to_ping, pinged, post_type)
         VALUES (?, 1, NOW(), UTC_TIMESTAMP(), '', 'Order', '', ?, NOW(), UTC_TIMESTAMP(), '', ?, '', '', ?)
         ON DUPLICATE KEY UPDATE post_type = VALUES(post_type), post_status = VALUES(post_status)`,
        [id, status, parent, type],
      );
    }
    const meta: [string, string][] =
      type === "shop_order"
        ? [
            ["_order_key", orderKey],
            ["_customer_user", String(customerId)],
            ["_billing_first_name", "Test"],
            ["_billing_last_name", "Buyer"],
            ["_billing_email", email],
            ["_order_currency", "EUR"],
            ["_order_total", "10.00"],
            ["_created_via", "checkout"],
          ]
        : [
            ["_refund_amount", "10.00"],
            ["_refunded_by", "1"],
            ["_order_currency", "EUR"],
          ];
    for (const [key, value] of meta)
      await this.run(`INSERT INTO ${this.t("postmeta")} (post_id, meta_key, meta_value) VALUES (?, ?, ?)`, [
        id,
        key,
        value,
      ]);
  }

  private async writeLine(
    orderId: number,
    name: string,
    meta: Record<string, string | number>,
  ): Promise<number> {
    const item = await this.run(
      `INSERT INTO ${this.t("woocommerce_order_items")} (order_item_name, order_item_type, order_id) VALUES (?, 'line_item', ?)`,
      [name, orderId],
    );
    for (const [key, value] of Object.entries(meta))
      await this.run(
        `INSERT INTO ${this.t("woocommerce_order_itemmeta")} (order_item_id, meta_key, meta_value) VALUES (?, ?, ?)`,
        [item.insertId, key, String(value)],
      );
    return item.insertId;
  }
}
