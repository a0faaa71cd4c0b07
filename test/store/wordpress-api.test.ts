// The real app over the WordPress store: logging in the fixture shop's users, registering, /health,
// and the answers a client gets while the shop's database is down.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2/promise";
import packageJson from "../../package.json" with { type: "json" };
import { Session, User } from "../../src/routes/authentication/authentication.schemas";
import { Health } from "../../src/routes/service/service.schemas";
import { openStore } from "../../src/store/open-store";
import { WordPressStore } from "../../src/store/wordpress";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import {
  createWordPressDatabase,
  fixtureLogins,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const UUID_KEY = "_bookdist_uuid";
/** The app with the store STORE_DRIVER=wordpress opens, as src/index.ts does. */
function wordPressApp(url: string): Promise<TestApp> {
  return createTestApp({
    store: async (deps) => {
      const store = await openStore(
        {
          ...deps.config,
          storeDriver: "wordpress",
          storeDatabaseUrl: url,
          storeTablePrefix: "wp_",
          storeUuidMetaKey: UUID_KEY,
        },
        deps.db,
        deps.clock,
      );
      expect(store).toBeInstanceOf(WordPressStore);
      return store;
    },
  });
}

describe.if(requireStoreServer())("the app over a WordPress shop", () => {
  let wp: WordPressDatabase;
  let t: TestApp;

  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    t = await wordPressApp(wp.url);
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  test.each(fixtureLogins)(
    "POST /authentication/login as $name gives 200 and roles $roles",
    async (fixture) => {
      const response = await t.call("POST", "/authentication/login", {
        json: { email: fixture.name, password: fixture.password },
      });
      expect(response.status).toBe(200);
      const session = await bodyAs(response, Session);
      expect(session.user.roles).toEqual([...fixture.roles]);

      const me = await t.call("GET", "/authentication/me", { token: session.token });
      expect(me.status).toBe(200);
      expect(await bodyAs(me, User)).toMatchObject({ uuid: session.user.uuid, roles: [...fixture.roles] });
    },
  );

  test("a wrong password gives 401 AUTHENTICATION_FAILED", async () => {
    const response = await t.call("POST", "/authentication/login", {
      json: { email: "jane.doe", password: "it's quoted" },
    });
    await expectProblem(response, 401, "AUTHENTICATION_FAILED");
  });

  test("POST /authentication/register creates a WooCommerce customer in the shop", async () => {
    const response = await t.call("POST", "/authentication/register", {
      json: {
        email: "new.reader@example.com",
        password: "a long enough passphrase",
        firstName: "New",
        lastName: "Reader",
      },
    });
    expect(response.status).toBe(201);
    const session = await bodyAs(response, Session);
    expect(session.user).toMatchObject({
      login: "new.reader",
      roles: ["user"],
      firstName: "New",
      lastName: "Reader",
    });

    const [users] = await wp.admin.query<RowDataPacket[]>(
      "SELECT ID, user_login FROM wp_users WHERE user_email = 'new.reader@example.com'",
    );
    expect(users).toHaveLength(1);
    const [meta] = await wp.admin.query<RowDataPacket[]>(
      "SELECT meta_key, meta_value FROM wp_usermeta WHERE user_id = ? ORDER BY umeta_id",
      [users[0]!.ID],
    );
    const byKey = new Map(meta.map((row) => [row.meta_key, row.meta_value]));
    expect(byKey.get("wp_capabilities")).toBe('a:1:{s:8:"customer";b:1;}');
    expect(byKey.get(UUID_KEY)).toBe(session.user.uuid);

    const again = await t.call("POST", "/authentication/register", {
      json: { email: "NEW.reader@example.com", password: "a long enough passphrase" },
    });
    await expectProblem(again, 409, "EMAIL_ALREADY_EXISTS");

    const login = await t.call("POST", "/authentication/login", {
      json: { email: "new.reader", password: "a long enough passphrase" },
    });
    expect(login.status).toBe(200);
  });

  test("GET /health is 200 with the store ok", async () => {
    const response = await t.call("GET", "/health");
    expect(response.status).toBe(200);
    expect(await bodyAs(response, Health)).toEqual({
      status: "ok",
      version: packageJson.version,
      database: "ok",
      store: "ok",
      storage: "ok",
    });
  });
});

describe("the app over a WordPress shop that is down", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await wordPressApp("mysql://root@127.0.0.1:1/wordpress");
  });
  afterAll(async () => {
    await t?.close();
  });

  test("login and register answer 503 SERVICE_UNAVAILABLE problem+json, telling nothing of the driver", async () => {
    const requests = [
      t.call("POST", "/authentication/login", { json: { email: "jane.doe", password: "whatever" } }),
      t.call("POST", "/authentication/register", {
        json: { email: "someone@example.com", password: "a long enough passphrase" },
      }),
    ];
    for (const response of await Promise.all(requests)) {
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toStartWith("application/problem+json");
      expect(response.headers.get("retry-after")).toBe("5");
      const text = await response.text();
      expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|mysql|at /i);
      expect(JSON.parse(text)).toMatchObject({ status: 503, code: "SERVICE_UNAVAILABLE" });
    }
  });

  test("GET /health is 503 with the store unavailable", async () => {
    const response = await t.call("GET", "/health");
    expect(response.status).toBe(503);
    expect(await bodyAs(response, Health)).toEqual({
      status: "unavailable",
      version: packageJson.version,
      database: "ok",
      store: "unavailable",
      storage: "ok",
    });
  });
});
