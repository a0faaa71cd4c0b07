// Device tokens over a real WordPress shop (README "Reading apps"): a token is made for a fixture
// shop user, works by login or e-mail, and ends within a minute when the shop changes the user's
// password (wp_users.user_pass) or deletes the user, as a session does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { hashPassword } from "../../src/auth/passwords";
import { CreatedDeviceToken } from "../../src/routes/device-tokens/device-tokens.schemas";
import { openStore } from "../../src/store/open-store";
import { expectProblem } from "../helpers/responses";
import { scopeProbePath } from "../helpers/scope-probe";
import { createTestApp, type TestApp } from "../helpers/test-app";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const MINUTE = 60_000;
const JANE = { login: "jane.doe", email: "jane.doe@example.com", password: 'it\'s "quoted"' };
const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;

describe.if(requireStoreServer())("device tokens over a WordPress shop", () => {
  let wp: WordPressDatabase;
  let t: TestApp;

  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    t = await createTestApp({
      scopeProbe: true,
      store: (deps) =>
        openStore(
          {
            ...deps.config,
            storeDriver: "wordpress",
            storeDatabaseUrl: wp.url,
            storeTablePrefix: "wp_",
            storeUuidMetaKey: "_bookdist_uuid",
          },
          deps.db,
          deps.clock,
        ),
    });
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  async function tokenFor(user: { login: string; password: string }): Promise<string> {
    const login = await t.call("POST", "/authentication/login", {
      json: { email: user.login, password: user.password },
    });
    expect(login.status).toBe(200);
    const { token: session } = (await login.json()) as { token: string };
    const created = await t.call("POST", "/authentication/device-token", {
      token: session,
      json: { name: "KOReader", password: user.password },
    });
    expect(created.status).toBe(201);
    return (await CreatedDeviceToken.parseAsync(await created.json())).token;
  }

  const probe = (authorization: string) =>
    t.call("GET", scopeProbePath("sync"), { headers: { Authorization: authorization } });

  test("a password changed in the shop ends the token within 60 s", async () => {
    const token = await tokenFor(JANE);
    expect((await probe(basic(JANE.login, token))).status).toBe(200);
    expect((await probe(basic(JANE.email, token))).status).toBe(200);
    // A minute on, the account is re-read from the shop: unchanged, the token keeps working.
    t.clock.advance(MINUTE);
    expect((await probe(basic(JANE.login, token))).status).toBe(200);
    const hash = await hashPassword("a new shop password", 4);
    await wp.admin.execute("UPDATE wp_users SET user_pass = ? WHERE user_login = ?", [hash, JANE.login]);
    t.clock.advance(MINUTE);
    await expectProblem(await probe(basic(JANE.login, token)), 401, "AUTHENTICATION_FAILED");
    // For good: a later minute does not bring it back.
    t.clock.advance(MINUTE);
    await expectProblem(await probe(basic(JANE.login, token)), 401, "AUTHENTICATION_FAILED");
  });

  test("the user deleted in the shop ends the token within 60 s", async () => {
    const token = await tokenFor({ login: "admin", password: "correct horse battery staple" });
    expect((await probe(basic("admin", token))).status).toBe(200);
    t.clock.advance(MINUTE);
    expect((await probe(basic("admin", token))).status).toBe(200);
    await wp.admin.query(
      "DELETE m FROM wp_usermeta m JOIN wp_users u ON u.ID = m.user_id WHERE u.user_login = 'admin'",
    );
    await wp.admin.query("DELETE FROM wp_users WHERE user_login = 'admin'");
    t.clock.advance(MINUTE);
    await expectProblem(await probe(basic("admin", token)), 401, "AUTHENTICATION_FAILED");
  });
});
