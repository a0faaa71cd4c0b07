// Live roles over a real WordPress shop on MariaDB: the shop's own rows are changed behind the
// app's back (a demotion in wp_usermeta, a new hash in wp_users, a deleted user) and two app
// instances on one bookdist database must notice within 60 s of clock time. Also the admin
// command line's lookup (findUser) against the shop.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { RowDataPacket } from "mysql2/promise";
import { type App, createApp } from "../../src/app";
import { Session } from "../../src/routes/authentication/authentication.schemas";
import { grantAdmin, revokeAdmin } from "../../src/services/admin-grants";
import { cliSource } from "../../src/services/audit";
import { openStore } from "../../src/store/open-store";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import {
  createWordPressDatabase,
  fixtureLogins,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const MINUTE = 60_000;
const ADMIN_ONLY = "/activation-qr-code/count";
const [admin, manager, jane] = fixtureLogins;
// A bcrypt hash of another password, as WordPress writes when a password is reset.
const OTHER_HASH = "$wp$2y$10$0ZbQ7wVhC7.z6X2I0Rk0E.4E2xDdlgGzvPz6cI2kQ8f4oP5LwF1mC";

describe.if(requireStoreServer())("live roles over a WordPress shop, two instances", () => {
  let wp: WordPressDatabase;
  let t: TestApp;
  let other: App;

  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    t = await createTestApp({
      store: (deps) =>
        openStore(
          { ...deps.config, storeDriver: "wordpress", storeDatabaseUrl: wp.url, storeTablePrefix: "wp_" },
          deps.db,
          deps.clock,
        ),
    });
    other = createApp(t.deps);
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  const onOther = (path: string, token: string) =>
    Promise.resolve(other.request(path, { headers: { Authorization: `Bearer ${token}` } }));

  async function login(name: string, password: string): Promise<string> {
    const response = await t.call("POST", "/authentication/login", { json: { email: name, password } });
    expect(response.status).toBe(200);
    return (await bodyAs(response, Session)).token;
  }

  test("the shop's administrator demoted to customer: 403 within 60 s", async () => {
    const token = await login(admin.name, admin.password);
    expect((await onOther(ADMIN_ONLY, token)).status).toBe(200);
    await wp.admin.query(
      `UPDATE wp_usermeta SET meta_value = 'a:1:{s:8:"customer";b:1;}' WHERE user_id = 1 AND meta_key = 'wp_capabilities'`,
    );
    t.clock.advance(MINUTE);
    const response = await onOther(ADMIN_ONLY, token);
    await expectProblem(response, 403, "FORBIDDEN");
    expect((await t.call("GET", ADMIN_ONLY, { token })).status).toBe(403);
  });

  test("a password hash changed in wp_users: 401 AUTHENTICATION_FAILED within 60 s", async () => {
    const token = await login(manager.name, manager.password);
    expect((await onOther(ADMIN_ONLY, token)).status).toBe(200);
    await wp.admin.query("UPDATE wp_users SET user_pass = ? WHERE ID = 2", [OTHER_HASH]);
    t.clock.advance(MINUTE);
    const response = await onOther(ADMIN_ONLY, token);
    await expectProblem(response, 401, "AUTHENTICATION_FAILED");
  });

  test("a grant by e-mail, revoked by login: admin, then 403 on the other instance", async () => {
    const token = await login(jane.name, jane.password);
    expect((await onOther(ADMIN_ONLY, token)).status).toBe(403);
    // The shop's collation decides case: the fixture's e-mail is jane.doe@example.com.
    const granted = await grantAdmin(t.deps, cliSource, "JANE.DOE@example.com");
    expect(granted.user?.login).toBe("jane.doe");
    expect((await onOther(ADMIN_ONLY, token)).status).toBe(200);
    await revokeAdmin(t.deps, cliSource, "jane.doe");
    expect((await onOther(ADMIN_ONLY, token)).status).toBe(403);
  });

  test("a user deleted in the shop: 401 AUTHENTICATION_FAILED within 60 s", async () => {
    const token = await login(jane.name, jane.password);
    expect((await onOther("/book", token)).status).toBe(200);
    await wp.admin.query("DELETE FROM wp_usermeta WHERE user_id = 3");
    await wp.admin.query("DELETE FROM wp_users WHERE ID = 3");
    t.clock.advance(MINUTE);
    const response = await onOther("/book", token);
    await expectProblem(response, 401, "AUTHENTICATION_FAILED");
  });

  test("findUser: an identifier with @ is an e-mail first, then a login; a shop user gets a uuid", async () => {
    // A user created in the shop who never logged in to bookdist, with an @ in the login.
    await wp.admin.query(
      `INSERT INTO wp_users (ID, user_login, user_pass, user_nicename, user_email, user_url, user_registered,
         user_activation_key, user_status, display_name)
       VALUES (10, 'shared@example.com', ?, 'shared', 'first@example.com', '', '2025-01-01 00:00:00', '', 0, 'x'),
              (11, 'second', ?, 'second', 'shared@example.com', '', '2025-01-01 00:00:00', '', 0, 'y')`,
      [OTHER_HASH, OTHER_HASH],
    );
    const byEmail = await t.deps.store.findUser("shared@example.com");
    expect(byEmail?.storeUserId).toBe("11");
    const byLogin = await t.deps.store.findUser("first@example.com");
    expect(byLogin?.storeUserId).toBe("10");
    expect(await t.deps.store.findUser("second")).toMatchObject({ storeUserId: "11" });
    expect(await t.deps.store.findUser("nobody")).toBeNull();
    const [meta] = await wp.admin.query<RowDataPacket[]>(
      "SELECT meta_value FROM wp_usermeta WHERE user_id = 11 AND meta_key = '_bookdist_uuid'",
    );
    expect(meta[0]?.meta_value).toBe(byEmail!.uuid);
  });
});
