// The shop screen (API.md §10 /console/shop): status and lag, product mappings added with the
// fields Book, Product and Variation (errors beside them, values kept, a 409 that says what to do)
// and removed after a confirmation page; a cross-site POST changes nothing. With shop orders off:
// no Sync now, and what the look-up says. On a real MariaDB shop (WooCommerce's tables, as
// test/shop/shop-orders.test.ts): Sync now's 303 and its counts, a cross-site sync that runs
// nothing, an order looked up (found, unknown, not a number), the recent grants. SQLite or Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2/promise";
import { openShop } from "../../src/services/open-shop";
import { countShopProducts } from "../../src/services/shop-products";
import { shopStatus } from "../../src/services/shop-status";
import { openStore } from "../../src/store/open-store";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { loadWooCommerceSchema, WooShop } from "../helpers/woocommerce";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";
import { makeBook } from "./fixtures";
import { consoleRequest, expectLoginRedirect, ORIGIN, signedInAdmin, signIn, textOf } from "./helpers";

const withShop = requireStoreServer();
const CROSS_SITE = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };

describe("console shop", () => {
  let t: TestApp;
  let cookie: string;
  let bookId: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
    bookId = (await makeBook(t, "Sold Book")).id;
  });
  afterAll(() => t.close());

  const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    consoleRequest(t, "POST", "/console/shop/products", { cookie, form, headers });

  test("no session: to the sign-in page; the page: status and the fields", async () => {
    expectLoginRedirect(await consoleRequest(t, "GET", "/console/shop"), "/console/shop");
    const response = await consoleRequest(t, "GET", "/console/shop", { cookie });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(textOf(html)).toContain("Shop orders off");
    for (const label of ["Book", "Product", "Variation"])
      expect(html).toMatch(new RegExp(`<label for="field-[a-z]+">${label}`));
  });

  test("map: errors beside the fields with values kept; then a 303; a duplicate is a 409", async () => {
    const wrong = await post({ book: "999999", product: "x12", variation: "" });
    expect(wrong.status).toBe(400);
    const html = await wrong.text();
    expect(html).toMatch(/id="error-product">Enter the product/);
    expect(html).toContain('value="x12"');
    const noBook = await post({ book: "999999", product: "12", variation: "" });
    expect(noBook.status).toBe(400);
    expect(await noBook.text()).toMatch(/id="error-book">No book has the id 999999/);
    const mapped = await post({ book: String(bookId), product: "12", variation: "3" });
    expect(mapped.status).toBe(303);
    expect(await countShopProducts(t.deps.db)).toBe(1);
    const again = await post({ book: String(bookId), product: "12", variation: "3" });
    expect(again.status).toBe(409);
    expect(textOf(await again.text())).toContain("already mapped");
    expect(textOf(await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text())).toContain(
      "Sold Book",
    );
  });

  test("cross-site POST: 403, nothing mapped or removed; remove after a confirmation page", async () => {
    const evil = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };
    expect((await post({ book: String(bookId), product: "13", variation: "" }, evil)).status).toBe(403);
    expect(await countShopProducts(t.deps.db)).toBe(1);
    const page = await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text();
    const id = /\/console\/shop\/products\/(\d+)\/remove/.exec(page)![1];
    const path = `/console/shop/products/${id}/remove`;
    expect((await consoleRequest(t, "POST", path, { cookie, headers: evil })).status).toBe(403);
    const confirm = await consoleRequest(t, "GET", path, { cookie });
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toMatch(/<button type="submit"[^>]*>Delete<\/button>/);
    expect(await countShopProducts(t.deps.db)).toBe(1);
    expect((await consoleRequest(t, "POST", path, { cookie })).status).toBe(303);
    expect(await countShopProducts(t.deps.db)).toBe(0);
    expect((await consoleRequest(t, "GET", path, { cookie })).status).toBe(404);
  });
});

describe("console shop with shop orders off", () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
  });
  afterAll(() => t.close());

  test("no Sync now button; its POST says why (409), not a 500", async () => {
    const html = await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text();
    expect(html).not.toContain('action="/console/shop/sync"');
    expect(textOf(html)).toContain("Shop orders are off (SHOP_ORDERS is unset)");
    const sync = await consoleRequest(t, "POST", "/console/shop/sync", { cookie });
    expect(sync.status).toBe(409);
    expect(textOf(await sync.text())).toContain("Shop orders are off (SHOP_ORDERS is unset)");
  });

  test("look-up: not a number → the field's error, the text kept; a number → shop orders are off", async () => {
    const bad = await consoleRequest(t, "GET", "/console/shop?order=12x", { cookie });
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toMatch(/id="error-order">Enter the order&#39;s number/);
    expect(html).toContain('value="12x"');
    const off = await consoleRequest(t, "GET", "/console/shop?order=12", { cookie });
    expect(off.status).toBe(404);
    expect(await off.text()).toMatch(/id="error-order">Shop orders are off/);
  });

  test("recent orders: none yet; the paged list answers", async () => {
    expect(textOf(await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text())).toContain(
      "No shop order has granted a book yet.",
    );
    const list = await consoleRequest(t, "GET", "/console/shop/orders?page=3", { cookie });
    expect(list.status).toBe(200);
    expect(textOf(await list.text())).toContain("Page 4");
  });
});

describe("console shop on a real WooCommerce shop", () => {
  let wp: WordPressDatabase;
  let shop: WooShop;
  let t: TestApp;
  let cookie: string;
  let bookId: number;
  const product = 4100;

  beforeAll(async () => {
    if (!storeServerUrl) return;
    wp = await createWordPressDatabase(storeServerUrl);
    await loadWooCommerceSchema(wp.admin);
    shop = new WooShop(wp.admin);
    await shop.setStorage("hpos");
    t = await createTestApp({
      env: { STORE_DRIVER: "wordpress", STORE_DATABASE_URL: wp.url, SHOP_ORDERS: "on" },
      store: (deps) => openStore(deps.config, deps.db, deps.clock),
      shop: (deps) => openShop(deps.config, deps),
    });
    // The fixture shop's administrator (test/fixtures/wordpress/schema.sql).
    cookie = await signIn(t, "admin", TEST_PASSWORD);
    const login = await t.call("POST", "/authentication/login", {
      json: { email: "admin", password: TEST_PASSWORD },
    });
    const token = ((await login.json()) as { token: string }).token;
    const created = await t.call("POST", "/book", { token, json: { title: "Sold in the shop" } });
    bookId = ((await created.json()) as { id: number }).id;
    const mapped = await consoleRequest(t, "POST", "/console/shop/products", {
      cookie,
      form: { book: String(bookId), product: String(product), variation: "" },
    });
    expect(mapped.status).toBe(303);
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  /** A customer registered in the shop, with their uuid and wp_users.ID. */
  async function customer() {
    const email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const user = await t.deps.store.register({
      email,
      password: "a password long enough",
      firstName: "",
      lastName: "",
    });
    const [row] = (
      await wp.admin.query<RowDataPacket[]>("SELECT ID FROM wp_users WHERE user_email = ?", [email])
    )[0];
    return { uuid: user.uuid, storeUserId: Number(row?.ID), email };
  }

  async function paidOrder(qty = 1) {
    const buyer = await customer();
    const order = await shop.createOrder({
      customerId: buyer.storeUserId,
      billingEmail: buyer.email,
      status: "wc-processing",
      lines: [{ productId: product, qty }, { productId: product + 1 }],
    });
    return { buyer, ...order };
  }

  test.if(withShop)("the page offers Sync now; a cross-site POST → 403 and nothing runs", async () => {
    const html = await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text();
    expect(html).toMatch(/<form method="post" action="\/console\/shop\/sync"/);
    expect(html).toMatch(/<button type="submit"[^>]*>Sync now<\/button>/);
    const { orderId } = await paidOrder();
    const before = await shopStatus(t.deps);
    const evil = await consoleRequest(t, "POST", "/console/shop/sync", { cookie, headers: CROSS_SITE });
    expect(evil.status).toBe(403);
    expect((await shopStatus(t.deps)).lastSyncAt).toBe(before.lastSyncAt);
    const lookup = await (
      await consoleRequest(t, "GET", `/console/shop?order=${orderId}`, { cookie })
    ).text();
    expect(textOf(lookup)).toContain(`What order ${orderId} granted`);
    expect(textOf(lookup)).toContain("bookdist has granted nothing for this order");
    expect(textOf(lookup)).toContain("Last reconciled never");
  });

  test.if(withShop)("Sync now: 303 back to /console/shop, the flash says what it did", async () => {
    const { orderId, buyer } = await paidOrder();
    const response = await consoleRequest(t, "POST", "/console/shop/sync", { cookie });
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location") ?? "", ORIGIN);
    expect(location.pathname).toBe("/console/shop");
    expect(location.searchParams.get("done")).toBe("shop-synced");
    // This order and the one the cross-site POST left unsynced: two grants.
    expect(Number(location.searchParams.get("granted"))).toBe(2);
    expect(Number(location.searchParams.get("ordersSeen"))).toBeGreaterThanOrEqual(2);
    expect(location.searchParams.get("revoked")).toBe("0");
    const shown = textOf(
      await (await consoleRequest(t, "GET", location.pathname + location.search, { cookie })).text(),
    );
    expect(shown).toMatch(
      /The shop was synchronised: \d+ orders seen, 2 books granted, 0 books taken back\./,
    );
    // The recent grants: this order first, linked to its look-up, the buyer and the book.
    expect(shown).toContain("Sold in the shop");
    const html = await (await consoleRequest(t, "GET", "/console/shop", { cookie })).text();
    const firstRow = html.slice(html.indexOf("The latest 10 grants"));
    expect(firstRow.indexOf(`href="/console/shop?order=${orderId}"`)).toBeGreaterThan(0);
    expect(firstRow).toContain(`/console/users/${buyer.uuid}`);
    const all = await (await consoleRequest(t, "GET", "/console/shop/orders", { cookie })).text();
    expect(all).toContain(`href="/console/shop?order=${orderId}"`);
    // The audit log names the shop as the grant's actor, as for POST /shop/sync.
    const audit = textOf(await (await consoleRequest(t, "GET", "/console/audit", { cookie })).text());
    expect(audit).toContain("shop.grant");
  });

  test.if(withShop)("look an order up: its status, items and grants; unknown; not a number", async () => {
    const { orderId, lineItemIds } = await paidOrder(2);
    expect((await consoleRequest(t, "POST", "/console/shop/sync", { cookie })).status).toBe(303);
    const found = await consoleRequest(t, "GET", `/console/shop?order=${orderId}`, { cookie });
    expect(found.status).toBe(200);
    const html = await found.text();
    const text = textOf(html);
    expect(text).toContain(`Order ${orderId}`);
    expect(text).toContain("wc-processing");
    expect(text).toMatch(/Paid yes/);
    expect(text).toContain(`The items of order ${orderId}`);
    expect(text).toMatch(new RegExp(`${lineItemIds[0]} ${product} — 2`));
    const grants = text.slice(text.indexOf(`What order ${orderId} granted`));
    expect(grants).toMatch(/Sold in the shop .* active \d+/);
    expect(html).toContain(`value="${orderId}"`);
    const unknown = await consoleRequest(t, "GET", "/console/shop?order=987654", { cookie });
    expect(unknown.status).toBe(404);
    const unknownHtml = await unknown.text();
    expect(unknownHtml).toMatch(/id="error-order">The shop has no order 987654\./);
    expect(unknownHtml).toContain('value="987654"');
    const bad = await consoleRequest(t, "GET", "/console/shop?order=-3", { cookie });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/id="error-order">Enter the order&#39;s number/);
  });
});
