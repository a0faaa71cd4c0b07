// Guest orders by proof (README "Shop orders", claimShopOrder) on a real MariaDB shop with
// WooCommerce's own tables, in both order storages. First the three ways an account used to take a
// guest's paid book by its billing e-mail — registering the address after the purchase, before it
// (squatting), or switching an existing shop account's address to it — each replayed to the end
// (registration, a sync, a login): the attacker gets nothing, and the buyer claims with the order
// key. Then the claim's own rules: one 404 for every wrong case, 409 for another account, the
// throttle, a refund after the claim, a customer WooCommerce sets later.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2/promise";
import { openShop } from "../../src/services/open-shop";
import { openStore } from "../../src/store/open-store";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { loadWooCommerceSchema, type Storage, WooShop } from "../helpers/woocommerce";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const withShop = requireStoreServer();

interface OrderView {
  orderId: number;
  status: string;
  paid: boolean;
  userUuid: string | null;
  grants: { bookId: number; state: string; activationId: number | null }[];
  syncedAt: string | null;
}

describe.each(["hpos", "posts"] as Storage[])(
  "guest orders are claimed by their key (%s storage)",
  (storage) => {
    let wp: WordPressDatabase;
    let shop: WooShop;
    let t: TestApp;
    let admin: string;
    let nextProduct = 3000;

    beforeAll(async () => {
      if (!storeServerUrl) return;
      wp = await createWordPressDatabase(storeServerUrl);
      await loadWooCommerceSchema(wp.admin);
      shop = new WooShop(wp.admin);
      await shop.setStorage(storage);
      t = await createTestApp({
        env: { STORE_DRIVER: "wordpress", STORE_DATABASE_URL: wp.url, SHOP_ORDERS: "on" },
        store: (deps) => openStore(deps.config, deps.db, deps.clock),
        shop: (deps) => openShop(deps.config, deps),
      });
      const login = await t.call("POST", "/authentication/login", {
        json: { email: "admin", password: "correct horse battery staple" },
      });
      admin = ((await login.json()) as { token: string }).token;
    });
    afterAll(async () => {
      await t?.close();
      await wp?.drop();
    });

    /** A mapped book and a paid guest order for it, billed to `email`. */
    async function guestPurchase(email: string, status = "wc-processing") {
      const created = await t.call("POST", "/book", { token: admin, json: { title: "Paid by a guest" } });
      const bookId = ((await created.json()) as { id: number }).id;
      const productId = nextProduct++;
      const mapped = await t.call("POST", "/shop-product", { token: admin, json: { bookId, productId } });
      expect(mapped.status).toBe(201);
      const order = await shop.createOrder({
        customerId: 0,
        billingEmail: email,
        status,
        lines: [{ productId }],
      });
      return { bookId, ...order };
    }

    const address = (who: string) => `${who}-${crypto.randomUUID().slice(0, 8)}@example.com`;

    async function sync() {
      const response = await t.call("POST", "/shop/sync", { token: admin });
      expect(response.status).toBe(200);
    }

    async function login(email: string): Promise<string> {
      const response = await t.call("POST", "/authentication/login", {
        json: { email, password: TEST_PASSWORD },
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { token: string }).token;
    }

    async function shelf(token: string): Promise<number[]> {
      const response = await t.call("GET", "/book/my-books", { token });
      expect(response.status).toBe(200);
      return ((await response.json()) as { book: { id: number } }[]).map((entry) => entry.book.id).sort();
    }

    async function order(orderId: number): Promise<OrderView> {
      const response = await t.call("GET", `/shop/orders/${orderId}`, { token: admin });
      expect(response.status).toBe(200);
      return (await response.json()) as OrderView;
    }

    const claim = (token: string, orderId: number, orderKey: string) =>
      t.call("POST", "/shop/claim", { token, json: { orderId, orderKey } });

    /** The real buyer, whose address the attacker holds, signs up with another one and claims. */
    async function buyerClaims(purchase: { orderId: number; orderKey: string; bookId: number }) {
      const buyer = await t.user(address("buyer"));
      const response = await claim(buyer.token, purchase.orderId, purchase.orderKey);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual(await order(purchase.orderId));
      expect(await shelf(buyer.token)).toEqual([purchase.bookId]);
      return buyer;
    }

    /** The shop's wp_users.ID of an account registered in the app. */
    async function storeUserIdOf(email: string): Promise<number> {
      const [rows] = await wp.admin.query<RowDataPacket[]>("SELECT ID FROM wp_users WHERE user_email = ?", [
        email,
      ]);
      return Number(rows[0]?.ID);
    }

    test.if(withShop)(
      "attack (a): registering the buyer's e-mail after the purchase gets nothing",
      async () => {
        const email = address("guest");
        const purchase = await guestPurchase(email);
        await sync();
        const attacker = await t.user(email);
        expect(await shelf(attacker.token)).toEqual([]);
        await sync();
        expect(await shelf(await login(email))).toEqual([]);
        expect(await order(purchase.orderId)).toMatchObject({
          userUuid: null,
          grants: [{ bookId: purchase.bookId, state: "no-account", activationId: null }],
        });
        const buyer = await buyerClaims(purchase);
        expect(await shelf(attacker.token)).toEqual([]);
        expect((await order(purchase.orderId)).userUuid).toBe(buyer.uuid);
      },
    );

    test.if(withShop)(
      "attack (b): an account squatting the e-mail before the purchase gets nothing",
      async () => {
        const email = address("squatted");
        const attacker = await t.user(email);
        const purchase = await guestPurchase(email);
        await sync();
        expect(await shelf(attacker.token)).toEqual([]);
        expect(await shelf(await login(email))).toEqual([]);
        await sync();
        expect(await shelf(attacker.token)).toEqual([]);
        await buyerClaims(purchase);
        expect(await shelf(attacker.token)).toEqual([]);
      },
    );

    test.if(withShop)(
      "attack (c): a shop account switching its e-mail to the buyer's gets nothing",
      async () => {
        const email = address("switched-to");
        const purchase = await guestPurchase(email);
        await sync();
        const attacker = await t.user(address("attacker"));
        // The profile page of the shop: the account's address becomes the buyer's.
        await wp.admin.query("UPDATE wp_users SET user_email = ? WHERE ID = ?", [
          email,
          await storeUserIdOf(attacker.email),
        ]);
        await sync();
        expect(await shelf(attacker.token)).toEqual([]);
        const relogged = await login(email);
        expect(await shelf(relogged)).toEqual([]);
        // The order changes in the shop (processing → completed): still nothing for that account.
        await shop.setStatus(purchase.orderId, "wc-completed");
        await sync();
        expect(await shelf(relogged)).toEqual([]);
        await buyerClaims(purchase);
        expect(await shelf(relogged)).toEqual([]);
      },
    );

    test.if(withShop)(
      "a wrong key, an unknown order and a customer's order are the same 404; nothing is bound",
      async () => {
        const reader = await t.user();
        const purchase = await guestPurchase(address("guest"));
        const customer = await t.user();
        const customerOrder = await shop.createOrder({
          customerId: await storeUserIdOf(customer.email),
          billingEmail: customer.email,
          status: "wc-processing",
          lines: [{ productId: nextProduct - 1 }],
        });
        const answers = [
          await claim(reader.token, purchase.orderId, `${purchase.orderKey.slice(0, -1)}x`),
          await claim(reader.token, purchase.orderId, purchase.orderKey.toUpperCase()),
          await claim(reader.token, 987654321, purchase.orderKey),
          // The customer's own order with its own key: not a guest order, so not claimable.
          await claim(customer.token, customerOrder.orderId, customerOrder.orderKey),
        ];
        const bodies = [];
        for (const answer of answers) {
          expect(answer.status).toBe(404);
          expect(answer.headers.get("content-type")).toStartWith("application/problem+json");
          bodies.push(await answer.text());
        }
        expect(new Set(bodies).size).toBe(1);
        expect(JSON.parse(bodies[0]!)).toMatchObject({ code: "NOT_FOUND", instance: "/shop/claim" });
        expect(await shelf(reader.token)).toEqual([]);
        expect((await order(purchase.orderId)).userUuid).toBeNull();
      },
    );

    test.if(withShop)("claimed once for good: another account 409, the same account again 200", async () => {
      const purchase = await guestPurchase(address("guest"));
      const buyer = await t.user();
      const first = await claim(buyer.token, purchase.orderId, purchase.orderKey);
      expect(first.status).toBe(200);
      const claimed = (await first.json()) as OrderView;
      expect(claimed).toMatchObject({ orderId: purchase.orderId, paid: true, userUuid: buyer.uuid });
      expect(claimed.grants).toEqual([
        { bookId: purchase.bookId, state: "active", activationId: expect.any(Number) },
      ]);
      const other = await t.user();
      const second = await claim(other.token, purchase.orderId, purchase.orderKey);
      expect(second.status).toBe(409);
      expect(((await second.json()) as { code: string }).code).toBe("CONFLICT");
      expect(await shelf(other.token)).toEqual([]);
      const again = await claim(buyer.token, purchase.orderId, ` ${purchase.orderKey} `);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(claimed);
      await sync();
      expect(await order(purchase.orderId)).toMatchObject({ userUuid: buyer.uuid, grants: claimed.grants });
    });

    test.if(withShop)(
      "ten wrong keys from one account: the eleventh attempt is 429 with Retry-After",
      async () => {
        const purchase = await guestPurchase(address("guest"));
        const guesser = await t.user();
        for (let i = 0; i < 10; i++)
          expect((await claim(guesser.token, purchase.orderId, `wc_order_guess${i}`)).status).toBe(404);
        const refused = await claim(guesser.token, purchase.orderId, purchase.orderKey);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await shelf(guesser.token)).toEqual([]);
        // Counted against that account only: the buyer still claims.
        await buyerClaims(purchase);
      },
    );

    test.if(withShop)("a refund after the claim revokes the claimant's book", async () => {
      const purchase = await guestPurchase(address("guest"));
      const buyer = await t.user();
      expect((await claim(buyer.token, purchase.orderId, purchase.orderKey)).status).toBe(200);
      expect(await shelf(buyer.token)).toEqual([purchase.bookId]);
      await shop.refund(purchase.orderId, [{ lineItemId: purchase.lineItemIds[0]!, qty: 1 }], true);
      await sync();
      expect(await shelf(buyer.token)).toEqual([]);
      expect(await order(purchase.orderId)).toMatchObject({
        status: "wc-refunded",
        paid: false,
        grants: [{ bookId: purchase.bookId, state: "revoked", activationId: null }],
      });
    });

    test.if(withShop)("an order not paid yet is bound by its claim and grants once paid", async () => {
      const purchase = await guestPurchase(address("guest"), "wc-on-hold");
      const buyer = await t.user();
      const response = await claim(buyer.token, purchase.orderId, purchase.orderKey);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ paid: false, userUuid: buyer.uuid, grants: [] });
      expect(await shelf(buyer.token)).toEqual([]);
      await shop.setStatus(purchase.orderId, "wc-processing");
      await sync();
      expect(await shelf(buyer.token)).toEqual([purchase.bookId]);
    });

    test.if(withShop)(
      "a customer WooCommerce sets later is the order's customer; no claim after",
      async () => {
        const purchase = await guestPurchase(address("guest"));
        const claimant = await t.user();
        expect((await claim(claimant.token, purchase.orderId, purchase.orderKey)).status).toBe(200);
        expect(await shelf(claimant.token)).toEqual([purchase.bookId]);
        const customer = await t.user();
        await shop.setCustomer(purchase.orderId, await storeUserIdOf(customer.email));
        await sync();
        expect(await shelf(claimant.token)).toEqual([]);
        expect(await shelf(customer.token)).toEqual([purchase.bookId]);
        expect((await order(purchase.orderId)).userUuid).toBe(customer.uuid);
        // No longer a guest order: the key claims nothing, for anyone.
        expect((await claim(claimant.token, purchase.orderId, purchase.orderKey)).status).toBe(404);
      },
    );
  },
);
