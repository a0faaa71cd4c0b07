// How long a paid WooCommerce order takes to reach the reader's shelf (GET /book/my-books) on the
// real server (`bun src/index.ts`, SHOP_ORDERS=on over a MariaDB shop with WooCommerce's tables):
//   1. without a webhook: the order is written as paid, the shelf polled every 100 ms until the
//      book is there (the SHOP_SYNC_CRON job, every minute, must find it within 60 s);
//   2. with one: the order is written, the signed `order.updated` delivery sent as WooCommerce
//      sends it, and the shelf polled (≤ 5 s).
// Each clock starts when the order's rows are committed in the shop. Usage:
//   bun bench/shop-latency.ts [rounds]   (BENCH_STORE_DATABASE_URL, default mysql://root@127.0.0.1:3306)
import { createHmac } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { loadWooCommerceSchema, WooShop } from "../test/helpers/woocommerce";
import { createWordPressDatabase } from "../test/helpers/wordpress";
import { fmt, freePort, json, startBookdist, tempDir } from "./lib";

const STORE_URL = process.env.BENCH_STORE_DATABASE_URL ?? "mysql://root@127.0.0.1:3306";
const ROUNDS = Number(process.argv[2] ?? 3);
const SECRET = "bench-webhook-secret";
const POLL_MS = 100;
const GIVE_UP_MS = 150_000;

const wp = await createWordPressDatabase(STORE_URL);
await loadWooCommerceSchema(wp.admin);
const shop = new WooShop(wp.admin);
await shop.setStorage("hpos");
const work = tempDir("bookdist-bench-shop-");
const server = await startBookdist({
  port: freePort(),
  dataDir: join(work, "data"),
  env: {
    STORE_DRIVER: "wordpress",
    STORE_DATABASE_URL: wp.url,
    SHOP_ORDERS: "on",
    SHOP_WEBHOOK_SECRET: SECRET,
  },
});

const call = (path: string, init: RequestInit & { token?: string } = {}) =>
  fetch(`${server.url}${path}`, {
    ...init,
    headers: {
      ...(init.body && typeof init.body === "string" && init.body.startsWith("{")
        ? { "Content-Type": "application/json" }
        : {}),
      ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
      ...(init.headers as Record<string, string>),
    },
  });

try {
  // The fixture shop's administrator maps a product to a book.
  const adminLogin = await call("/authentication/login", {
    method: "POST",
    body: JSON.stringify({ email: "admin", password: "correct horse battery staple" }),
  });
  const admin = (await json<{ token: string }>(adminLogin)).token;
  const book = await json<{ id: number }>(
    await call("/book", { method: "POST", token: admin, body: JSON.stringify({ title: "Bench book" }) }),
  );

  async function measure(product: number, webhook: boolean): Promise<number> {
    await call("/shop-product", {
      method: "POST",
      token: admin,
      body: JSON.stringify({ bookId: book.id, productId: product }),
    });
    const email = `bench-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const registered = await call("/authentication/register", {
      method: "POST",
      body: JSON.stringify({ email, password: "bench-password-long" }),
    });
    const reader = await json<{ token: string }>(registered);
    const [[row]] = (await wp.admin.query("SELECT ID FROM wp_users WHERE user_email = ?", [email])) as [
      { ID: number }[],
      unknown,
    ];
    const { orderId } = await shop.createOrder({
      customerId: Number(row!.ID),
      billingEmail: email,
      status: "wc-processing",
      lines: [{ productId: product }],
    });
    const started = performance.now();
    if (webhook) {
      const body = JSON.stringify({ id: orderId, status: "processing" });
      const delivered = await call("/shop/webhook", {
        method: "POST",
        body,
        headers: {
          "X-WC-Webhook-Topic": "order.updated",
          "X-WC-Webhook-Signature": createHmac("sha256", SECRET).update(body).digest("base64"),
        },
      });
      if (delivered.status !== 200) throw new Error(`webhook: ${delivered.status}`);
    }
    for (;;) {
      const shelf = await json<{ book: { id: number } }[]>(
        await call("/book/my-books", { token: reader.token }),
      );
      if (shelf.some((entry) => entry.book.id === book.id)) return performance.now() - started;
      if (performance.now() - started > GIVE_UP_MS) throw new Error("the book never arrived");
      await Bun.sleep(POLL_MS);
    }
  }

  const without: number[] = [];
  const withHook: number[] = [];
  let product = 5000;
  for (let round = 0; round < ROUNDS; round++) {
    without.push(await measure(product++, false));
    withHook.push(await measure(product++, true));
    console.log(
      `round ${round + 1}: without webhook ${fmt(without.at(-1)! / 1000)} s, with webhook ${fmt(withHook.at(-1)!, 0)} ms`,
    );
  }
  const max = (values: number[]) => Math.max(...values);
  console.log(
    `paid order → GET /book/my-books: without webhook max ${fmt(max(without) / 1000)} s (limit 60 s), ` +
      `with webhook max ${fmt(max(withHook), 0)} ms (limit 5 s), ${ROUNDS} rounds`,
  );
} finally {
  await server.stop();
  await wp.drop();
  rmSync(work, { recursive: true, force: true });
}
