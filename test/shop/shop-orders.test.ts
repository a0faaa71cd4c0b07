// README, Shop orders, on a real MariaDB shop with WooCommerce's own tables, in both order
// storages: paid orders grant, refunds and cancellations revoke (guest orders and their claims:
// guest-claims.test.ts), books already held stay as they were, variations map on their own, a shop
// switching to HPOS mid-life, several instances reconciling at once, and the signed webhook (php as
// the oracle).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2/promise";
import { createLogger } from "../../src/lib/logger";
import { registry } from "../../src/metrics/registry";
import { openShop } from "../../src/services/open-shop";
import type { ShopSync } from "../../src/services/shop-sync";
import { openStore } from "../../src/store/open-store";
import { onlyIn, requireTool } from "../helpers/requires";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { loadWooCommerceSchema, type Storage, WooShop } from "../helpers/woocommerce";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const SECRET = "s3cr3t&amp;webhook-of-the-shop";
const withShop = requireStoreServer();
const hasPhp = withShop ? requireTool("php", "php-cli") : false;

/** The app as src/index.ts opens it with STORE_DRIVER=wordpress and SHOP_ORDERS=on. */
function shopApp(url: string, logLines: string[]): Promise<TestApp> {
  return createTestApp({
    logger: createLogger("info", (line) => logLines.push(line)),
    env: {
      STORE_DRIVER: "wordpress",
      STORE_DATABASE_URL: url,
      SHOP_ORDERS: "on",
      SHOP_WEBHOOK_SECRET: SECRET,
    },
    store: (deps) => openStore(deps.config, deps.db, deps.clock),
    shop: (deps) => openShop(deps.config, deps),
  });
}

/** The signature WooCommerce sends, computed by PHP itself (wp_specialchars_decode + hash_hmac). */
function phpSignature(body: string | Uint8Array, secret: string): string {
  const code =
    'echo base64_encode(hash_hmac("sha256", file_get_contents("php://stdin"), htmlspecialchars_decode($argv[1], ENT_QUOTES), true));';
  const run = Bun.spawnSync(["php", "-r", code, secret], { stdin: Buffer.from(body) });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return run.stdout.toString().trim();
}

/** A bookdist_* counter's value in this process (the in-process app counts into the one registry). */
async function counter(name: string): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  return (await metric.get()).values.reduce((sum, sample) => sum + sample.value, 0);
}

describe.each(["hpos", "posts"] as Storage[])("shop orders grant books (%s storage)", (storage) => {
  let wp: WordPressDatabase;
  let shop: WooShop;
  let t: TestApp;
  let admin: string;
  let nextProduct = 1000;
  const logLines: string[] = [];
  /** The grant or revocation lines logged (services/shop-grants.ts). */
  const logged = (msg: string) =>
    logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === msg);

  beforeAll(async () => {
    if (!storeServerUrl) return;
    wp = await createWordPressDatabase(storeServerUrl);
    await loadWooCommerceSchema(wp.admin);
    shop = new WooShop(wp.admin);
    await shop.setStorage(storage);
    t = await shopApp(wp.url, logLines);
    // The fixture shop's administrator (test/fixtures/wordpress/schema.sql).
    const login = await t.call("POST", "/authentication/login", {
      json: { email: "admin", password: "correct horse battery staple" },
    });
    admin = ((await login.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  async function book(title = "A book"): Promise<number> {
    const response = await t.call("POST", "/book", { token: admin, json: { title } });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: number }).id;
  }

  async function map(bookId: number, productId: number, variationId?: number): Promise<void> {
    const response = await t.call("POST", "/shop-product", {
      token: admin,
      json: { bookId, productId, variationId },
    });
    expect(response.status).toBe(201);
  }

  /**
   * A customer registered in the shop (as a buyer is) and signed in to the app, with their
   * wp_users.ID. Not registered through the app: its 20 registrations an hour per address would
   * not last this file.
   */
  async function customer() {
    const email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const password = "a password long enough";
    await t.deps.store.register({ email, password, firstName: "", lastName: "" });
    const login = await t.call("POST", "/authentication/login", { json: { email, password } });
    expect(login.status).toBe(200);
    const session = (await login.json()) as { token: string; user: { uuid: string } };
    const [row] = (
      await wp.admin.query<RowDataPacket[]>("SELECT ID FROM wp_users WHERE user_email = ?", [email])
    )[0];
    return { token: session.token, uuid: session.user.uuid, email, storeUserId: Number(row?.ID) };
  }

  async function sync() {
    const response = await t.call("POST", "/shop/sync", { token: admin });
    expect(response.status).toBe(200);
    return (await response.json()) as { ordersSeen: number; granted: number; revoked: number };
  }

  async function shelf(token: string): Promise<number[]> {
    const response = await t.call("GET", "/book/my-books", { token });
    expect(response.status).toBe(200);
    return ((await response.json()) as { book: { id: number } }[]).map((entry) => entry.book.id).sort();
  }

  async function order(orderId: number) {
    const response = await t.call("GET", `/shop/orders/${orderId}`, { token: admin });
    expect(response.status).toBe(200);
    return (await response.json()) as {
      status: string;
      paid: boolean;
      userUuid: string | null;
      grants: { bookId: number; state: string; activationId: number | null }[];
    };
  }

  test.if(withShop)("a paid order grants its mapped book, once; the activation names the order", async () => {
    const bookId = await book();
    const product = nextProduct++;
    await map(bookId, product);
    const buyer = await customer();
    const { orderId } = await shop.createOrder({
      customerId: buyer.storeUserId,
      billingEmail: buyer.email,
      status: "wc-processing",
      lines: [{ productId: product }, { productId: nextProduct++ }],
    });
    const grantsBefore = await counter("bookdist_shop_grants_total");
    expect((await sync()).granted).toBeGreaterThanOrEqual(1);
    expect(await counter("bookdist_shop_grants_total")).toBeGreaterThan(grantsBefore);
    expect(await shelf(buyer.token)).toEqual([bookId]);
    const view = await order(orderId);
    expect(view).toMatchObject({ status: "wc-processing", paid: true, userUuid: buyer.uuid });
    expect(view.grants).toEqual([{ bookId, state: "active", activationId: expect.any(Number) }]);
    const activation = await t.call("GET", `/activation/${view.grants[0]!.activationId}`, { token: admin });
    expect(await activation.json()).toMatchObject({
      bookId,
      userUuid: buyer.uuid,
      qrCodeId: null,
      shopOrderId: orderId,
    });
    // Logged once, with the order, the book and the user.
    expect(logged("shop order granted a book").filter((line) => line.orderId === orderId)).toEqual([
      expect.objectContaining({
        orderId,
        bookId,
        userUuid: buyer.uuid,
        activationId: view.grants[0]!.activationId,
      }),
    ]);
    // Idempotent: the next sync (the overlap window sees the order again) grants nothing more.
    expect(await sync()).toMatchObject({ granted: 0, revoked: 0 });
    expect(await shelf(buyer.token)).toEqual([bookId]);
  });

  test.if(withShop)("pending and on-hold grant nothing; processing then does", async () => {
    const bookId = await book();
    const product = nextProduct++;
    await map(bookId, product);
    const buyer = await customer();
    const { orderId } = await shop.createOrder({
      customerId: buyer.storeUserId,
      billingEmail: buyer.email,
      status: "wc-pending",
      lines: [{ productId: product }],
    });
    await sync();
    expect(await shelf(buyer.token)).toEqual([]);
    await shop.setStatus(orderId, "wc-on-hold");
    await sync();
    expect(await shelf(buyer.token)).toEqual([]);
    expect((await order(orderId)).paid).toBe(false);
    await shop.setStatus(orderId, "wc-processing");
    await sync();
    expect(await shelf(buyer.token)).toEqual([bookId]);
  });

  test.if(withShop)("a full refund and a cancellation after payment revoke", async () => {
    const bookId = await book();
    const product = nextProduct++;
    await map(bookId, product);
    const buyer = await customer();
    const first = await shop.createOrder({
      customerId: buyer.storeUserId,
      billingEmail: buyer.email,
      status: "wc-completed",
      lines: [{ productId: product }],
    });
    await sync();
    expect(await shelf(buyer.token)).toEqual([bookId]);
    await shop.refund(first.orderId, [{ lineItemId: first.lineItemIds[0]!, qty: 1 }], true);
    const revocationsBefore = await counter("bookdist_shop_revocations_total");
    expect((await sync()).revoked).toBe(1);
    expect(await counter("bookdist_shop_revocations_total")).toBe(revocationsBefore + 1);
    expect(await shelf(buyer.token)).toEqual([]);
    expect((await order(first.orderId)).grants).toEqual([{ bookId, state: "revoked", activationId: null }]);
    expect(logged("shop order revoked a book").filter((line) => line.orderId === first.orderId)).toEqual([
      expect.objectContaining({ orderId: first.orderId, bookId, userUuid: buyer.uuid }),
    ]);

    const second = await shop.createOrder({
      customerId: buyer.storeUserId,
      billingEmail: buyer.email,
      status: "wc-processing",
      lines: [{ productId: product }],
    });
    await sync();
    expect(await shelf(buyer.token)).toEqual([bookId]);
    await shop.setStatus(second.orderId, "wc-cancelled");
    await sync();
    expect(await shelf(buyer.token)).toEqual([]);
  });

  test.if(withShop)("a partial refund of one of two lines revokes that line's books only", async () => {
    const [kept, refunded] = [await book("Kept"), await book("Refunded")];
    const [p1, p2] = [nextProduct++, nextProduct++];
    await map(kept, p1);
    await map(refunded, p2);
    const buyer = await customer();
    const { orderId, lineItemIds } = await shop.createOrder({
      customerId: buyer.storeUserId,
      billingEmail: buyer.email,
      status: "wc-completed",
      lines: [{ productId: p1 }, { productId: p2, qty: 2 }],
    });
    await sync();
    expect(await shelf(buyer.token)).toEqual([kept, refunded].sort());
    // One of the two copies refunded: the line still has a net quantity of 1.
    await shop.refund(orderId, [{ lineItemId: lineItemIds[1]!, qty: 1 }]);
    await sync();
    expect(await shelf(buyer.token)).toEqual([kept, refunded].sort());
    await shop.refund(orderId, [{ lineItemId: lineItemIds[1]!, qty: 1 }]);
    await sync();
    expect(await shelf(buyer.token)).toEqual([kept]);
    expect(await shop.statusOf(orderId)).toBe("wc-completed");
    const view = await order(orderId);
    expect(view.grants.map((g) => [g.bookId, g.state])).toEqual([
      [kept, "active"],
      [refunded, "revoked"],
    ]);
  });

  test.if(withShop)(
    "a book already held via a QR code stays: already-held, and its refund leaves the QR activation",
    async () => {
      const bookId = await book();
      const product = nextProduct++;
      await map(bookId, product);
      const buyer = await customer();
      const code = await t.call("POST", "/activation-qr-code", { token: admin, json: { bookId } });
      const redeemed = await t.call("POST", "/activation/by-qr-code", {
        token: buyer.token,
        json: { code: ((await code.json()) as { code: string }).code },
      });
      expect(redeemed.status).toBe(201);
      const qrActivation = (await redeemed.json()) as { id: number };
      const { orderId, lineItemIds } = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-completed",
        lines: [{ productId: product }],
      });
      expect((await sync()).granted).toBe(0);
      expect((await order(orderId)).grants).toEqual([
        { bookId, state: "already-held", activationId: qrActivation.id },
      ]);
      await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }], true);
      expect((await sync()).revoked).toBe(0);
      const still = await t.call("GET", `/activation/${qrActivation.id}`, { token: admin });
      expect(still.status).toBe(200);
      expect(await shelf(buyer.token)).toEqual([bookId]);
    },
  );

  test.if(withShop)(
    "another paid order of the same customer grants the book again after a refund",
    async () => {
      const bookId = await book();
      const product = nextProduct++;
      await map(bookId, product);
      const buyer = await customer();
      const first = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-completed",
        lines: [{ productId: product }],
      });
      const second = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-completed",
        lines: [{ productId: product }],
      });
      await sync();
      expect((await order(first.orderId)).grants[0]!.state).toBe("active");
      expect((await order(second.orderId)).grants[0]!.state).toBe("already-held");
      await shop.refund(first.orderId, [{ lineItemId: first.lineItemIds[0]!, qty: 1 }], true);
      expect(await sync()).toMatchObject({ revoked: 1, granted: 1 });
      expect(await shelf(buyer.token)).toEqual([bookId]);
      expect((await order(second.orderId)).grants[0]!.state).toBe("active");
    },
  );

  test.if(withShop)(
    "a variation-specific mapping grants for that variation only; a product mapping for any",
    async () => {
      const [large, any] = [await book("Large print"), await book("Any edition")];
      const product = nextProduct++;
      await map(large, product, 501);
      await map(any, product);
      const buyer = await customer();
      await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-processing",
        lines: [{ productId: product, variationId: 502 }],
      });
      await sync();
      expect(await shelf(buyer.token)).toEqual([any]);
      await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-processing",
        lines: [{ productId: product, variationId: 501 }],
      });
      await sync();
      expect(await shelf(buyer.token)).toEqual([large, any].sort());
    },
  );

  test.if(withShop)("three instances syncing at once grant and revoke each thing exactly once", async () => {
    const bookId = await book();
    const product = nextProduct++;
    await map(bookId, product);
    const buyers = await Promise.all(Array.from({ length: 6 }, () => customer()));
    const orders = [];
    for (const buyer of buyers)
      orders.push(
        await shop.createOrder({
          customerId: buyer.storeUserId,
          billingEmail: buyer.email,
          status: "wc-processing",
          lines: [{ productId: product }],
        }),
      );
    // Three reconcilers over one bookdist database and one shop, as three instances would be.
    const others = [await openShop(t.config, t.deps), await openShop(t.config, t.deps)] as ShopSync[];
    const instances = [t.deps.shop!, ...others];
    try {
      const granted = await Promise.all(instances.map((instance) => instance.sync()));
      expect(granted.reduce((sum, r) => sum + r.granted, 0)).toBe(buyers.length);
      for (const buyer of buyers) expect(await shelf(buyer.token)).toEqual([bookId]);
      for (const written of orders) await shop.setStatus(written.orderId, "wc-cancelled");
      const revoked = await Promise.all(instances.map((instance) => instance.sync()));
      expect(revoked.reduce((sum, r) => sum + r.revoked, 0)).toBe(buyers.length);
      expect(revoked.reduce((sum, r) => sum + r.granted, 0)).toBe(0);
      // No flip-flop: the state holds whoever syncs next.
      const again = await Promise.all(instances.map((instance) => instance.sync()));
      expect(again.map((r) => [r.granted, r.revoked])).toEqual([
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
      for (const buyer of buyers) expect(await shelf(buyer.token)).toEqual([]);
    } finally {
      for (const other of others) await other.close();
    }
  });

  test.if(withShop && hasPhp)(
    "the webhook: ping, signed delivery reconciles at once, bad signature 401, other topics ignored",
    async () => {
      const bookId = await book();
      const product = nextProduct++;
      await map(bookId, product);
      const buyer = await customer();
      const ping = await t.call("POST", "/shop/webhook", {
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "webhook_id=17",
      });
      expect(ping.status).toBe(200);
      const { orderId } = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-processing",
        lines: [{ productId: product }],
      });
      // What PHP's json_encode makes: escaped slashes and non-ASCII; the payload's status is a hint only.
      const body = `{"id":${orderId},"status":"pending","billing":{"email":"${buyer.email}","note":"caf\\u00e9 \\/ b\\u00fccher"}}`;
      const deliver = (signature: string | undefined, topic = "order.updated") =>
        t.call("POST", "/shop/webhook", {
          headers: {
            "Content-Type": "application/json",
            "X-WC-Webhook-Topic": topic,
            "X-WC-Webhook-Resource": "order",
            "X-WC-Webhook-Event": "updated",
            ...(signature === undefined ? {} : { "X-WC-Webhook-Signature": signature }),
          },
          body,
        });
      expect((await deliver(undefined)).status).toBe(401);
      // Bounded like every JSON body (1 MiB), before the signature is even computed.
      const huge = await t.call("POST", "/shop/webhook", {
        headers: {
          "Content-Type": "application/json",
          "X-WC-Webhook-Signature": "x",
          "X-WC-Webhook-Topic": "order.updated",
        },
        body: `{"id":1,"pad":"${"a".repeat(2 * 1024 * 1024)}"}`,
      });
      expect(huge.status).toBe(413);
      expect((await deliver(phpSignature(body, "another secret"))).status).toBe(401);
      expect((await deliver(phpSignature(`${body} `, SECRET))).status).toBe(401);
      expect(await shelf(buyer.token)).toEqual([]);
      expect((await deliver(phpSignature(body, SECRET), "product.updated")).status).toBe(200);
      expect(await shelf(buyer.token)).toEqual([]);
      const delivered = await deliver(phpSignature(body, SECRET));
      expect(delivered.status).toBe(200);
      expect(await shelf(buyer.token)).toEqual([bookId]);
      const status = (await (await t.call("GET", "/shop/status", { token: admin })).json()) as Record<
        string,
        unknown
      >;
      expect(status).toMatchObject({
        enabled: true,
        orderStorage: storage,
        paidStatuses: ["wc-processing", "wc-completed"],
        webhook: { configured: true, lastDeliveryAt: expect.any(String) },
      });
    },
  );

  test.if(withShop && hasPhp)(
    "a delivery is reconciled from the authoritative storage, whatever the other one's copy says",
    async () => {
      const bookId = await book();
      const product = nextProduct++;
      await map(bookId, product);
      const buyer = await customer();
      const other: Storage = storage === "hpos" ? "posts" : "hpos";
      const { orderId } = await shop.createOrder(
        {
          customerId: buyer.storeUserId,
          billingEmail: buyer.email,
          status: "wc-pending",
          lines: [{ productId: product }],
        },
        other,
      );
      // The copy in the other storage says paid (a lagging sync the other way round): it is not read.
      if (other === "hpos")
        await wp.admin.query("UPDATE wp_wc_orders SET status = 'wc-completed' WHERE id = ?", [orderId]);
      else await wp.admin.query("UPDATE wp_posts SET post_status = 'wc-completed' WHERE ID = ?", [orderId]);
      const body = JSON.stringify({ id: orderId, status: "completed" });
      const headers = {
        "Content-Type": "application/json",
        "X-WC-Webhook-Topic": "order.updated",
        "X-WC-Webhook-Signature": phpSignature(body, SECRET),
      };
      expect((await t.call("POST", "/shop/webhook", { headers, body })).status).toBe(200);
      expect(await shelf(buyer.token)).toEqual([]);
      expect((await order(orderId)).status).toBe("wc-pending");
    },
  );

  test.if(withShop && onlyIn(storage === "posts", "the switch to HPOS starts from a shop on posts"))(
    "HPOS switched on mid-life: the orders read the same, and later changes are seen",
    async () => {
      const bookId = await book();
      const product = nextProduct++;
      await map(bookId, product);
      const buyer = await customer();
      const { orderId, lineItemIds } = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-completed",
        lines: [{ productId: product }],
      });
      await sync();
      const before = await order(orderId);
      await shop.migrateToHpos();
      // Identical results from the other storage: a sync after the switch changes nothing.
      expect(await sync()).toMatchObject({ granted: 0, revoked: 0 });
      expect(await order(orderId)).toEqual(before);
      await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }], true);
      expect((await sync()).revoked).toBe(1);
      expect(await shelf(buyer.token)).toEqual([]);
      const status = (await (await t.call("GET", "/shop/status", { token: admin })).json()) as {
        orderStorage: string;
      };
      expect(status.orderStorage).toBe("hpos");
      await shop.setStorage("posts");
    },
  );

  test.if(withShop)(
    "two refund steps in different seconds, a sync between them, no webhook: the next sync revokes",
    async () => {
      const bookId = await book();
      const product = nextProduct++;
      await map(bookId, product);
      const buyer = await customer();
      const { orderId, lineItemIds } = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-completed",
        lines: [{ productId: product, qty: 2 }],
      });
      await sync();
      expect(await shelf(buyer.token)).toEqual([bookId]);
      await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }]);
      // The shop's clock (whole seconds) moves on: the sync below has this first refund behind it,
      // so the next scan meets its row, oldest first and already seen, before the newer ones.
      await Bun.sleep(1100);
      expect(await sync()).toMatchObject({ granted: 0, revoked: 0 });
      expect(await shelf(buyer.token)).toEqual([bookId]);
      await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }], true);
      expect((await sync()).revoked).toBe(1);
      expect(await shelf(buyer.token)).toEqual([]);
      expect(await order(orderId)).toMatchObject({
        status: "wc-refunded",
        paid: false,
        grants: [{ bookId, state: "revoked", activationId: null }],
      });
    },
  );

  test.if(withShop)(
    "a deleted mapping keeps its grants while the order is paid and the line's net quantity > 0",
    async () => {
      const [first, second] = [await book("First"), await book("Second")];
      const [p1, p2] = [nextProduct++, nextProduct++];
      const mappingIds: number[] = [];
      for (const [bookId, productId] of [
        [first, p1],
        [second, p2],
      ] as const) {
        const created = await t.call("POST", "/shop-product", { token: admin, json: { bookId, productId } });
        expect(created.status).toBe(201);
        mappingIds.push(((await created.json()) as { id: number }).id);
      }
      const buyer = await customer();
      const { orderId, lineItemIds } = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-processing",
        lines: [{ productId: p1 }, { productId: p2 }],
      });
      expect((await sync()).granted).toBe(2);
      for (const id of mappingIds)
        expect((await t.call("DELETE", `/shop-product/${id}`, { token: admin })).status).toBe(200);
      // The order's next change, with no mapping left: the books and the order's customer stay.
      await shop.setStatus(orderId, "wc-completed");
      expect(await sync()).toMatchObject({ granted: 0, revoked: 0 });
      expect(await shelf(buyer.token)).toEqual([first, second].sort());
      const view = await order(orderId);
      expect(view).toMatchObject({ status: "wc-completed", paid: true, userUuid: buyer.uuid });
      expect(view.grants.map((g) => [g.bookId, g.state])).toEqual([
        [first, "active"],
        [second, "active"],
      ]);
      // A line refunded to a net 0 still takes its book back; leaving the paid statuses, the rest.
      await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }]);
      expect(await sync()).toMatchObject({ granted: 0, revoked: 1 });
      expect(await shelf(buyer.token)).toEqual([second]);
      await shop.setStatus(orderId, "wc-cancelled");
      expect(await sync()).toMatchObject({ granted: 0, revoked: 1 });
      expect(await shelf(buyer.token)).toEqual([]);
      expect((await order(orderId)).userUuid).toBe(buyer.uuid);
    },
  );

  test.if(withShop)(
    "a code redeemed on a book a shop order holds is consumed and recorded; the refund leaves the book",
    async () => {
      const bookId = await book();
      const product = nextProduct++;
      await map(bookId, product);
      const buyer = await customer();
      const { orderId, lineItemIds } = await shop.createOrder({
        customerId: buyer.storeUserId,
        billingEmail: buyer.email,
        status: "wc-completed",
        lines: [{ productId: product }],
      });
      await sync();
      const [grant] = (await order(orderId)).grants;
      expect(grant).toMatchObject({ bookId, state: "active" });
      const codes = [];
      for (let i = 0; i < 2; i++) {
        const created = await t.call("POST", "/activation-qr-code", { token: admin, json: { bookId } });
        codes.push((await created.json()) as { id: number; code: string });
      }
      const countOf = async (id: number) =>
        (
          (await (await t.call("GET", `/activation-qr-code/${id}`, { token: admin })).json()) as {
            activationCount: number;
          }
        ).activationCount;
      const redeem = (code: string) =>
        t.call("POST", "/activation/by-qr-code", { token: buyer.token, json: { code } });
      const redeemed = await redeem(codes[0]!.code);
      expect(redeemed.status).toBe(200);
      expect(await redeemed.json()).toMatchObject({
        id: grant!.activationId,
        bookId,
        userUuid: buyer.uuid,
        qrCodeId: codes[0]!.id,
        shopOrderId: orderId,
      });
      expect(await countOf(codes[0]!.id)).toBe(1);
      // The activation stands on a code now: another code is not consumed (held, as always).
      const again = await redeem(codes[1]!.code);
      expect(again.status).toBe(200);
      expect(((await again.json()) as { qrCodeId: number }).qrCodeId).toBe(codes[0]!.id);
      expect(await countOf(codes[1]!.id)).toBe(0);
      await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }], true);
      expect(await sync()).toMatchObject({ granted: 0, revoked: 0 });
      expect(await shelf(buyer.token)).toEqual([bookId]);
      const kept = await t.call("GET", `/activation/${grant!.activationId}`, { token: admin });
      expect(await kept.json()).toMatchObject({ qrCodeId: codes[0]!.id, shopOrderId: null });
      expect(await countOf(codes[0]!.id)).toBe(1);
      expect((await order(orderId)).grants).toEqual([{ bookId, state: "revoked", activationId: null }]);
    },
  );

  test.if(withShop && hasPhp)(
    "the webhook's signature covers the raw bytes: a BOM and invalid UTF-8, signed by PHP, are accepted",
    async () => {
      const bom = Buffer.from([0xef, 0xbb, 0xbf]);
      const invalid = Buffer.from([0xff, 0xfe, 0xc3]);
      for (const [name, bodyOf] of [
        ["a BOM", (id: number) => Buffer.concat([bom, Buffer.from(`{"id":${id}}`)])],
        [
          "invalid UTF-8",
          (id: number) => Buffer.concat([Buffer.from(`{"id":${id},"note":"`), invalid, Buffer.from('"}')]),
        ],
      ] as const) {
        const bookId = await book(name);
        const product = nextProduct++;
        await map(bookId, product);
        const buyer = await customer();
        const { orderId } = await shop.createOrder({
          customerId: buyer.storeUserId,
          billingEmail: buyer.email,
          status: "wc-processing",
          lines: [{ productId: product }],
        });
        const body = new Uint8Array(bodyOf(orderId));
        const deliver = (signature: string) =>
          t.call("POST", "/shop/webhook", {
            headers: {
              "Content-Type": "application/json",
              "X-WC-Webhook-Topic": "order.updated",
              "X-WC-Webhook-Signature": signature,
            },
            body,
          });
        // Signed over the text as decoded and encoded again: not what was sent.
        const reEncoded = new TextEncoder().encode(new TextDecoder().decode(body));
        expect((await deliver(phpSignature(reEncoded, SECRET))).status).toBe(401);
        expect(await shelf(buyer.token)).toEqual([]);
        const delivered = await deliver(phpSignature(body, SECRET));
        expect([name, delivered.status]).toEqual([name, 200]);
        expect(await shelf(buyer.token)).toEqual([bookId]);
      }
    },
  );

  test.if(withShop)("GET /shop/orders/{orderId} is 404 for an order the shop does not have", async () => {
    const response = await t.call("GET", "/shop/orders/987654321", { token: admin });
    expect(response.status).toBe(404);
  });
});

describe("shop endpoints without SHOP_ORDERS", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("the webhook is 404, sync, orders and claims are 404, status says off; mappings still work", async () => {
    const admin = (await t.admin()).token;
    expect((await t.call("POST", "/shop/webhook", { body: "webhook_id=1" })).status).toBe(404);
    expect((await t.call("POST", "/shop/sync", { token: admin })).status).toBe(404);
    expect((await t.call("GET", "/shop/orders/1", { token: admin })).status).toBe(404);
    const reader = (await t.user()).token;
    const claim = await t.call("POST", "/shop/claim", {
      token: reader,
      json: { orderId: 1, orderKey: "wc_order_abcdefghijklm" },
    });
    expect(claim.status).toBe(404);
    const status = await t.call("GET", "/shop/status", { token: admin });
    expect(await status.json()).toMatchObject({
      enabled: false,
      orderStorage: null,
      webhook: { configured: false },
    });
  });
});

describe.if(withShop)("SHOP_GUEST_ORDERS=ignore", () => {
  let wp: WordPressDatabase;
  let t: TestApp;
  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    await loadWooCommerceSchema(wp.admin);
    t = await createTestApp({
      env: {
        STORE_DRIVER: "wordpress",
        STORE_DATABASE_URL: wp.url,
        SHOP_ORDERS: "on",
        SHOP_GUEST_ORDERS: "ignore",
      },
      store: (deps) => openStore(deps.config, deps.db, deps.clock),
      shop: (deps) => openShop(deps.config, deps),
    });
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  test("a guest order grants nothing and records no grant, even once the e-mail has an account; no claim", async () => {
    const shop = new WooShop(wp.admin);
    await shop.setStorage("hpos");
    const login = await t.call("POST", "/authentication/login", {
      json: { email: "admin", password: "correct horse battery staple" },
    });
    const admin = ((await login.json()) as { token: string }).token;
    const book = (await (await t.call("POST", "/book", { token: admin, json: { title: "B" } })).json()) as {
      id: number;
    };
    await t.call("POST", "/shop-product", { token: admin, json: { bookId: book.id, productId: 77 } });
    const email = "ignored-guest@example.com";
    const { orderId, orderKey } = await shop.createOrder({
      customerId: 0,
      billingEmail: email,
      status: "wc-completed",
      lines: [{ productId: 77 }],
    });
    await t.call("POST", "/shop/sync", { token: admin });
    const guest = await t.user(email);
    await t.call("POST", "/shop/sync", { token: admin });
    // Even the right key claims nothing here: ignore means guest orders are not bookdist's business.
    const claim = await t.call("POST", "/shop/claim", { token: guest.token, json: { orderId, orderKey } });
    expect(claim.status).toBe(404);
    const shelf = (await (await t.call("GET", "/book/my-books", { token: guest.token })).json()) as unknown[];
    expect(shelf).toEqual([]);
    const view = (await (await t.call("GET", `/shop/orders/${orderId}`, { token: admin })).json()) as {
      grants: unknown[];
      userUuid: string | null;
    };
    expect(view).toMatchObject({ userUuid: null, grants: [] });
  });
});
