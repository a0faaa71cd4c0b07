// POST /shop/claim through the real server (`bun src/index.ts`, its own process and port) on a
// WordPress shop with WooCommerce's tables on MariaDB, as a client would call it: the account that
// registered the buyer's e-mail gets nothing, a wrong key and an unknown order get one identical
// 404, the key's holder gets the book, another account 409, and wrong guesses from one client
// address are refused with 429 + Retry-After once 50 are counted, whichever accounts made them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { TEST_PASSWORD } from "../helpers/test-app";
import { loadWooCommerceSchema, WooShop } from "../helpers/woocommerce";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

describe.if(requireStoreServer())("claiming a guest order, real server (MariaDB, HPOS)", () => {
  let wp: WordPressDatabase;
  let server: RealServer;
  let shop: WooShop;

  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    await loadWooCommerceSchema(wp.admin);
    shop = new WooShop(wp.admin);
    await shop.setStorage("hpos");
    server = await startRealServer({
      env: {
        THROTTLE: "on",
        // Each client its own address (X-Forwarded-For), so the per-address count is the test's to fill.
        TRUSTED_PROXIES: "127.0.0.1",
        STORE_DRIVER: "wordpress",
        STORE_DATABASE_URL: wp.url,
        SHOP_ORDERS: "on",
      },
    });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await wp?.drop();
  });

  const call = (path: string, init: { client: string; token?: string; json?: unknown; method?: string }) =>
    fetch(`${server.url}${path}`, {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers: {
        "X-Forwarded-For": init.client,
        ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
        ...(init.json === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });

  let clients = 0;
  async function register(email = `reader-${crypto.randomUUID().slice(0, 8)}@example.com`) {
    const response = await call("/authentication/register", {
      client: `203.0.113.${++clients}`,
      json: { email, password: TEST_PASSWORD },
    });
    expect(response.status).toBe(201);
    const session = (await response.json()) as { token: string; user: { uuid: string } };
    return { token: session.token, uuid: session.user.uuid };
  }

  async function shelf(token: string): Promise<number[]> {
    const response = await call("/book/my-books", { client: "192.0.2.99", token });
    expect(response.status).toBe(200);
    return ((await response.json()) as { book: { id: number } }[]).map((entry) => entry.book.id);
  }

  test("the key's holder gets the book; the e-mail's registrant, wrong keys and a second account do not", async () => {
    const login = await call("/authentication/login", {
      client: "192.0.2.1",
      json: { email: "admin", password: "correct horse battery staple" },
    });
    const admin = ((await login.json()) as { token: string }).token;
    const book = await call("/book", {
      client: "192.0.2.1",
      token: admin,
      json: { title: "Bought as a guest" },
    });
    const bookId = ((await book.json()) as { id: number }).id;
    const mapped = await call("/shop-product", {
      client: "192.0.2.1",
      token: admin,
      json: { bookId, productId: 4242 },
    });
    expect(mapped.status).toBe(201);
    const email = `guest-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { orderId, orderKey } = await shop.createOrder({
      customerId: 0,
      billingEmail: email,
      status: "wc-processing",
      lines: [{ productId: 4242 }],
    });

    // The order is synced first, as the cron would have: an earlier version then gave it to
    // whoever registered its e-mail.
    expect((await call("/shop/sync", { client: "192.0.2.1", token: admin, method: "POST" })).status).toBe(
      200,
    );
    const squatter = await register(email);
    expect(await shelf(squatter.token)).toEqual([]);
    expect((await call("/shop/sync", { client: "192.0.2.1", token: admin, method: "POST" })).status).toBe(
      200,
    );
    expect(await shelf(squatter.token)).toEqual([]);

    const buyer = await register();
    const claim = (token: string, client: string, id: number, key: string) =>
      call("/shop/claim", { client, token, json: { orderId: id, orderKey: key } });
    const wrongKey = await claim(buyer.token, "192.0.2.10", orderId, "wc_order_notTheKey12");
    const unknown = await claim(buyer.token, "192.0.2.10", orderId + 100_000, orderKey);
    expect([wrongKey.status, unknown.status]).toEqual([404, 404]);
    expect(await wrongKey.text()).toBe(await unknown.text());

    const claimed = await claim(buyer.token, "192.0.2.10", orderId, orderKey);
    expect(claimed.status).toBe(200);
    expect(await claimed.json()).toMatchObject({
      orderId,
      paid: true,
      userUuid: buyer.uuid,
      grants: [{ bookId, state: "active" }],
    });
    expect(await shelf(buyer.token)).toEqual([bookId]);

    const taken = await claim(squatter.token, "192.0.2.11", orderId, orderKey);
    expect(taken.status).toBe(409);
    expect(await shelf(squatter.token)).toEqual([]);

    // Fifty wrong guesses from one address, ten per account (each account's own limit): the
    // address is full, for a fresh account too, and only there.
    const guessers = await Promise.all(Array.from({ length: 5 }, () => register()));
    for (const guesser of guessers)
      for (let i = 0; i < 10; i++)
        expect((await claim(guesser.token, "198.51.100.7", orderId, `wc_order_guess${i}`)).status).toBe(404);
    const fresh = await register();
    const refused = await claim(fresh.token, "198.51.100.7", orderId, orderKey);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { code: string }).code).toBe("TOO_MANY_REQUESTS");
    expect((await claim(fresh.token, "198.51.100.8", orderId, orderKey)).status).toBe(409);
  }, 60_000);
});
