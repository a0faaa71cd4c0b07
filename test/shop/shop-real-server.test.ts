// Shop orders through the real server (`bun src/index.ts`, Bun's own HTTP stack) on a MariaDB
// shop, in both order storages: a webhook body is signed over the bytes as they arrive (a BOM,
// invalid UTF-8; PHP computes the signature as WooCommerce does), and two refund steps in
// different seconds with a sync between them are revoked by the next sync (POST /shop/sync).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2/promise";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { requireTool } from "../helpers/requires";
import { loadWooCommerceSchema, type Storage, WooShop } from "../helpers/woocommerce";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const SECRET = "a webhook secret of the real shop";
const withShop = requireStoreServer();
const hasPhp = withShop ? requireTool("php", "php-cli") : false;

/** WooCommerce's signature of these bytes, computed by PHP (hash_hmac over php://stdin, raw). */
function phpSignature(body: Uint8Array): string {
  const code = 'echo base64_encode(hash_hmac("sha256", file_get_contents("php://stdin"), $argv[1], true));';
  const run = Bun.spawnSync(["php", "-r", code, SECRET], { stdin: Buffer.from(body) });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return run.stdout.toString().trim();
}

describe.each(["hpos", "posts"] as Storage[])(
  "shop orders through the real server (%s storage)",
  (storage) => {
    let wp: WordPressDatabase;
    let shop: WooShop;
    let server: RealServer;
    let admin: string;
    let nextProduct = 3000;

    beforeAll(async () => {
      if (!withShop) return;
      wp = await createWordPressDatabase(storeServerUrl!);
      await loadWooCommerceSchema(wp.admin);
      shop = new WooShop(wp.admin);
      await shop.setStorage(storage);
      server = await startRealServer({
        env: {
          STORE_DRIVER: "wordpress",
          STORE_DATABASE_URL: wp.url,
          SHOP_ORDERS: "on",
          SHOP_WEBHOOK_SECRET: SECRET,
          // The test runs the syncs itself.
          SHOP_SYNC_CRON: "0 0 1 1 *",
        },
      });
      const login = await call("POST", "/authentication/login", {
        json: { email: "admin", password: "correct horse battery staple" },
      });
      admin = ((await login.json()) as { token: string }).token;
      // A WordPress database loaded and a server started: seconds on a busy machine.
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      await wp?.drop();
    });

    function call(
      method: string,
      path: string,
      options: { token?: string; json?: unknown; headers?: Record<string, string>; body?: Uint8Array } = {},
    ): Promise<Response> {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.Authorization = `Bearer ${options.token}`;
      if (options.json !== undefined) headers["Content-Type"] = "application/json";
      return fetch(`${server.url}${path}`, {
        method,
        headers,
        body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
      });
    }

    /** A mapped book and a signed-in customer of the shop, with their wp_users.ID. */
    async function mappedBookAndBuyer(title: string) {
      const created = await call("POST", "/book", { token: admin, json: { title } });
      const bookId = ((await created.json()) as { id: number }).id;
      const productId = nextProduct++;
      const mapped = await call("POST", "/shop-product", { token: admin, json: { bookId, productId } });
      expect(mapped.status).toBe(201);
      const email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const registered = await call("POST", "/authentication/register", {
        json: { email, password: "a password long enough" },
      });
      expect(registered.status).toBe(201);
      const { token } = (await registered.json()) as { token: string };
      const [row] = (
        await wp.admin.query<RowDataPacket[]>("SELECT ID FROM wp_users WHERE user_email = ?", [email])
      )[0];
      return { bookId, productId, token, email, storeUserId: Number(row?.ID) };
    }

    async function shelf(token: string): Promise<number[]> {
      const response = await call("GET", "/book/my-books", { token });
      expect(response.status).toBe(200);
      return ((await response.json()) as { book: { id: number } }[]).map((entry) => entry.book.id);
    }

    async function sync() {
      const response = await call("POST", "/shop/sync", { token: admin });
      expect(response.status).toBe(200);
      return (await response.json()) as { granted: number; revoked: number };
    }

    test.if(withShop && hasPhp)(
      "a signed body with a BOM, or with invalid UTF-8, is accepted as sent",
      async () => {
        const vectors = {
          bom: (id: number) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"id":${id}}`)]),
          "invalid UTF-8": (id: number) =>
            Buffer.concat([
              Buffer.from(`{"id":${id},"note":"`),
              Buffer.from([0xc3, 0x28, 0xff]),
              Buffer.from('"}'),
            ]),
        };
        for (const [name, bodyOf] of Object.entries(vectors)) {
          const buyer = await mappedBookAndBuyer(name);
          const { orderId } = await shop.createOrder({
            customerId: buyer.storeUserId,
            billingEmail: buyer.email,
            status: "wc-processing",
            lines: [{ productId: buyer.productId }],
          });
          const body = new Uint8Array(bodyOf(orderId));
          const delivered = await call("POST", "/shop/webhook", {
            headers: {
              "Content-Type": "application/json",
              "X-WC-Webhook-Topic": "order.updated",
              "X-WC-Webhook-Signature": phpSignature(body),
            },
            body,
          });
          expect([name, delivered.status]).toEqual([name, 200]);
          expect(await shelf(buyer.token)).toEqual([buyer.bookId]);
        }
      },
    );

    test.if(withShop)(
      "two refund steps in different seconds, a sync between them: the next sync revokes",
      async () => {
        const buyer = await mappedBookAndBuyer("Refunded in two steps");
        const { orderId, lineItemIds } = await shop.createOrder({
          customerId: buyer.storeUserId,
          billingEmail: buyer.email,
          status: "wc-completed",
          lines: [{ productId: buyer.productId, qty: 2 }],
        });
        await sync();
        expect(await shelf(buyer.token)).toEqual([buyer.bookId]);
        await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }]);
        await Bun.sleep(1100);
        expect(await sync()).toMatchObject({ granted: 0, revoked: 0 });
        await shop.refund(orderId, [{ lineItemId: lineItemIds[0]!, qty: 1 }], true);
        expect((await sync()).revoked).toBe(1);
        expect(await shelf(buyer.token)).toEqual([]);
      },
    );
  },
);
