// What the shop-order reader's statements (src/store/woocommerce.ts orderQueries) cost on a shop
// with 100,000 orders: seeds a MariaDB WordPress database with WooCommerce's tables in both
// storages (each order: its row or post, postmeta, one line item with its meta; every tenth
// order a refund), then prints EXPLAIN for each statement: the index used and the rows examined.
// With BENCH_SYNC=1 it then times a first sync (the cursor at 1970) of that shop into a fresh
// SQLite database, one product (1/300 of the orders) mapped to a book.
//   bun bench/shop-explain.ts [orders]   (BENCH_STORE_DATABASE_URL, default mysql://root@127.0.0.1:3306)
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { RowDataPacket } from "mysql2/promise";
import { parseConfig } from "../src/config";
import { openDatabase } from "../src/db/client";
import { systemClock } from "../src/lib/clock";
import { silentLogger } from "../src/lib/logger";
import { insertBook } from "../src/repositories/books";
import { insertShopProduct } from "../src/repositories/shop-products";
import { openShop } from "../src/services/open-shop";
import { openStore } from "../src/store/open-store";
import { orderQueries } from "../src/store/woocommerce";
import { loadWooCommerceSchema } from "../test/helpers/woocommerce";
import { createWordPressDatabase } from "../test/helpers/wordpress";
import { tempDir } from "./lib";

const STORE_URL = process.env.BENCH_STORE_DATABASE_URL ?? "mysql://root@127.0.0.1:3306";
const ORDERS = Number(process.argv[2] ?? 100_000);
const REFUNDS = Math.floor(ORDERS / 10);

const wp = await createWordPressDatabase(STORE_URL);
const db = wp.admin;
const run = (sql: string, values: unknown[] = []) => db.query(sql, values);
try {
  await loadWooCommerceSchema(db);
  const started = performance.now();
  // Orders 1..N and refunds N+1..N+R (refund k refunds order k*10), as posts and as HPOS rows with
  // the same ids and dates, updated-at spread over the last 100 days.
  await run(`INSERT INTO wp_posts (ID, post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt,
      post_status, post_modified, post_modified_gmt, post_content_filtered, post_parent, to_ping, pinged, post_type)
    SELECT seq, 1, d, d, '', 'Order', '', ELT(1 + seq % 5, 'wc-completed', 'wc-processing', 'wc-pending', 'wc-cancelled', 'wc-on-hold'),
      d, d, '', 0, '', '', 'shop_order'
    FROM (SELECT seq, UTC_TIMESTAMP() - INTERVAL (${ORDERS} - seq) * 86 SECOND AS d FROM seq_1_to_${ORDERS}) s`);
  await run(`INSERT INTO wp_posts (ID, post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt,
      post_status, post_modified, post_modified_gmt, post_content_filtered, post_parent, to_ping, pinged, post_type)
    SELECT ${ORDERS} + seq, 1, UTC_TIMESTAMP(), UTC_TIMESTAMP(), '', 'Refund', '', 'wc-completed', UTC_TIMESTAMP(),
      UTC_TIMESTAMP() - INTERVAL seq SECOND, '', seq * 10, '', '', 'shop_order_refund'
    FROM seq_1_to_${REFUNDS}`);
  await run(`INSERT INTO wp_postmeta (post_id, meta_key, meta_value)
    SELECT seq, k.meta_key, IF(k.meta_key = '_customer_user', seq % 1000, CONCAT('buyer', seq % 5000, '@example.com'))
    FROM seq_1_to_${ORDERS}, (SELECT '_customer_user' AS meta_key UNION ALL SELECT '_billing_email'
      UNION ALL SELECT '_order_key' UNION ALL SELECT '_order_total' UNION ALL SELECT '_order_currency') k`);
  await run(`INSERT INTO wp_wc_orders (id, status, currency, type, total_amount, customer_id, billing_email,
      date_created_gmt, date_updated_gmt, parent_order_id)
    SELECT ID, post_status, 'EUR', post_type, 10, 0, NULL, post_date_gmt, post_modified_gmt, post_parent FROM wp_posts
    WHERE post_type IN ('shop_order', 'shop_order_refund')`);
  await run(`INSERT INTO wp_woocommerce_order_items (order_item_id, order_item_name, order_item_type, order_id)
    SELECT seq, 'Book', 'line_item', seq FROM seq_1_to_${ORDERS}`);
  await run(`INSERT INTO wp_woocommerce_order_items (order_item_id, order_item_name, order_item_type, order_id)
    SELECT ${ORDERS} + seq, 'Refunded', 'line_item', ${ORDERS} + seq FROM seq_1_to_${REFUNDS}`);
  await run(`INSERT INTO wp_woocommerce_order_itemmeta (order_item_id, meta_key, meta_value)
    SELECT seq, k.meta_key, IF(k.meta_key = '_qty', '1', seq % 300)
    FROM seq_1_to_${ORDERS}, (SELECT '_product_id' AS meta_key UNION ALL SELECT '_variation_id' UNION ALL SELECT '_qty'
      UNION ALL SELECT '_line_total' UNION ALL SELECT '_line_subtotal' UNION ALL SELECT '_tax_class') k`);
  await run(`INSERT INTO wp_woocommerce_order_itemmeta (order_item_id, meta_key, meta_value)
    SELECT ${ORDERS} + seq, k.meta_key, IF(k.meta_key = '_qty', '-1', seq * 10)
    FROM seq_1_to_${REFUNDS}, (SELECT '_qty' AS meta_key UNION ALL SELECT '_refunded_item_id') k`);
  await run(
    "INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('woocommerce_custom_orders_table_enabled', 'yes', 'yes')",
  );
  for (const table of [
    "wp_posts",
    "wp_postmeta",
    "wp_wc_orders",
    "wp_woocommerce_order_items",
    "wp_woocommerce_order_itemmeta",
  ])
    await run(`ANALYZE TABLE ${table}`);
  console.log(
    `seeded ${ORDERS} orders and ${REFUNDS} refunds in both storages in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const q = orderQueries("wp_");
  // A sync's usual window: the last 6 minutes (cursor − overlap); the first sync reads from 1970.
  const [[now]] = (await db.query("SELECT UTC_TIMESTAMP() - INTERVAL 6 MINUTE AS since")) as [
    RowDataPacket[],
    unknown,
  ];
  const since = String(now?.since);
  const order = 5000; // has a refund (every tenth order)
  const statements: [string, string, unknown[]][] = [
    ["storage option", q.storageOption, []],
    ["changed since (HPOS, last 6 min)", q.changedHpos(500), [since, since, 0]],
    [
      "changed since (HPOS, first sync)",
      q.changedHpos(500),
      ["1970-01-01 00:00:00", "1970-01-01 00:00:00", 0],
    ],
    ["changed since (posts, last 6 min)", q.changedPosts(500), [since, since, 0]],
    [
      "changed since (posts, first sync)",
      q.changedPosts(500),
      ["1970-01-01 00:00:00", "1970-01-01 00:00:00", 0],
    ],
    ["order head (HPOS)", q.hposOrder, [order]],
    ["order refunds (HPOS)", q.hposRefunds, [order]],
    ["order head (posts)", q.postsOrder, [order]],
    ["order meta (posts)", q.postsMeta, [order]],
    ["order refunds (posts)", q.postsRefunds, [order]],
    ["order key (HPOS)", q.hposOrderKey, [order]],
    ["order key (posts)", q.postsOrderKey, [order]],
    [
      "line items + refund lines",
      q.lines(2),
      [order, ORDERS + order / 10, "_product_id", "_variation_id", "_qty", "_refunded_item_id"],
    ],
  ];
  for (const [name, sql, values] of statements) {
    const [plan] = (await db.query(`EXPLAIN ${sql}`, values)) as [RowDataPacket[], unknown];
    const t0 = performance.now();
    await db.query(sql, values);
    const ms = performance.now() - t0;
    const steps = plan
      .map(
        (step) =>
          `${step.table}: ${step.type} key=${step.key ?? "none"} rows=${step.rows}${step.Extra ? ` (${step.Extra})` : ""}`,
      )
      .join("; ");
    console.log(`${name.padEnd(36)} ${ms.toFixed(1).padStart(6)} ms  ${steps}`);
  }
  if (process.env.BENCH_SYNC === "1") await timeFirstSync();
} finally {
  await wp.drop();
}

async function timeFirstSync(): Promise<void> {
  const dir = tempDir("bookdist-bench-shop-sync-");
  const parsed = parseConfig({
    DATA_DIR: dir,
    STORE_DRIVER: "wordpress",
    STORE_DATABASE_URL: wp.url,
    SHOP_ORDERS: "on",
  });
  if (!parsed.ok) throw new Error(parsed.problems.join());
  const config = parsed.config;
  const database = await openDatabase(`sqlite:${join(dir, "bookdist.sqlite")}`, {
    migrate: true,
    logger: silentLogger,
  });
  const db = database.db;
  const store = await openStore(config, db, systemClock);
  const shop = (await openShop(config, { db, clock: systemClock, logger: silentLogger, store }))!;
  try {
    const book = await insertBook(
      db,
      { title: "Mapped", author: null, isbn: null, description: null, language: null },
      new Date(),
    );
    await insertShopProduct(db, { bookId: book.id, productId: 7, variationId: 0 }, new Date());
    const t0 = performance.now();
    const result = await shop.sync();
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `first sync of ${ORDERS} orders (${result.ordersSeen} seen, product 7 mapped): ${seconds.toFixed(1)} s, ` +
        `${((seconds * 1000) / result.ordersSeen).toFixed(2)} ms an order, ${result.granted} granted`,
    );
    const t1 = performance.now();
    const again = await shop.sync();
    console.log(
      `the next sync (the 5-minute overlap only): ${((performance.now() - t1) / 1000).toFixed(2)} s, ${again.ordersSeen} orders seen`,
    );
  } finally {
    await shop.close();
    await store.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
