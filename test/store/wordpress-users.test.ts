// GET /user and GET /user/{userUUID} over a real WordPress shop on MariaDB (API.md §10, README
// "Finding users and activations"): a prefix of user_login, user_email or user_nicename, case-
// insensitive under the table's collation, paged and sorted; first and last names (wp_usermeta,
// no index on meta_value) are not searched. A user found without a uuid gets one, once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "@hono/zod-openapi";
import type { RowDataPacket } from "mysql2/promise";
import { User } from "../../src/routes/authentication/authentication.schemas";
import { openStore } from "../../src/store/open-store";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import {
  createWordPressDatabase,
  requireStoreServer,
  storeServerUrl,
  type WordPressDatabase,
} from "../helpers/wordpress";

const UUID_KEY = "_bookdist_uuid";
const Users = z.array(User);

describe.if(requireStoreServer())("user search over a WordPress shop", () => {
  let wp: WordPressDatabase;
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    wp = await createWordPressDatabase(storeServerUrl!);
    t = await createTestApp({
      store: (deps) =>
        openStore(
          {
            ...deps.config,
            storeDriver: "wordpress",
            storeDatabaseUrl: wp.url,
            storeTablePrefix: "wp_",
            storeUuidMetaKey: UUID_KEY,
          },
          deps.db,
          deps.clock,
        ),
    });
    const login = await t.call("POST", "/authentication/login", {
      json: { email: "admin", password: "correct horse battery staple" },
    });
    expect(login.status).toBe(200);
    token = ((await login.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await t?.close();
    await wp?.drop();
  });

  const search = async (query: string) => {
    const response = await t.call("GET", `/user?${query}`, { token });
    expect(response.status).toBe(200);
    return { response, users: await bodyAs(response, Users) };
  };

  test("a prefix of login, e-mail or nicename, whatever the case", async () => {
    expect((await search("q=JANE")).users.map((user) => user.login)).toEqual(["jane.doe"]);
    expect((await search("q=manager%40ex")).users.map((user) => user.email)).toEqual(["manager@example.com"]);
    // user_nicename "jane-doe": a prefix the login (jane.doe) does not have.
    expect((await search("q=jane-d")).users.map((user) => user.login)).toEqual(["jane.doe"]);
    const all = await search("q=ad");
    expect(all.users.map((user) => user.login)).toEqual(["admin"]);
    expect(all.users[0]!.roles).toEqual(["user", "admin"]);
  });

  test("not the middle of a field, not a LIKE wildcard, not a first or last name", async () => {
    expect((await search("q=example")).users).toEqual([]);
    expect((await search("q=%25a")).users).toEqual([]);
    expect((await search("q=_a")).users).toEqual([]);
    // Sam Manager's display name and Jane's first name live outside the indexed columns.
    expect((await search("q=sam")).users).toEqual([]);
  });

  test("paged and sorted, with the exact total", async () => {
    const byEmail = await search("q=ma&sort=email,desc");
    expect(byEmail.users.map((user) => user.login)).toEqual(["manager"]);
    const page = await search("q=ma&size=1&page=0");
    expect(page.users.map((user) => user.login)).toEqual(["manager"]);
    expect(page.response.headers.get("X-Total-Count")).toBe("1");
    const desc = await search("q=jane.doe%40&sort=email,desc");
    expect(desc.users.map((user) => user.login)).toEqual(["jane.doe"]);
  });

  test("the console's bounded search: a count stops at its bound, a window of the first matches", async () => {
    const { store } = t.deps;
    expect(await store.countUsers("jane")).toBe(1);
    expect(await store.countUsers("jane", 5)).toBe(1);
    // Counting stops at upTo + 1 matches.
    expect(await store.countUsers("jane", 0)).toBe(1);
    expect(await store.countUsers("nobody", 5)).toBe(0);
    const window = {
      prefix: "JANE",
      sort: [{ field: "email" as const, direction: "desc" as const }],
      limit: 5,
    };
    const within = await store.searchUsers({ ...window, offset: 0, within: 5 });
    expect(within.map((user) => user.login)).toEqual(["jane.doe"]);
    expect(await store.searchUsers({ ...window, offset: 1, within: 5 })).toEqual([]);
    expect(await store.searchUsers({ ...window, prefix: "nobody", offset: 0, within: 5 })).toEqual([]);
  });

  test("a found user without a uuid gets one, once, and GET /user/{userUUID} finds them by it", async () => {
    // The fixture's Jane has no uuid row until bookdist first sees her (the tests above did).
    const [jane] = (await search("q=jane")).users;
    const again = (await search("q=jane")).users[0];
    expect(again!.uuid).toBe(jane!.uuid);
    const after = await wp.admin.query<RowDataPacket[]>(
      "SELECT meta_value FROM wp_usermeta WHERE user_id = 3 AND meta_key = ?",
      [UUID_KEY],
    );
    expect((after[0] as RowDataPacket[]).map((row) => row.meta_value)).toEqual([jane!.uuid]);
    const response = await t.call("GET", `/user/${jane!.uuid}`, { token });
    expect(await bodyAs(response, User)).toMatchObject({
      uuid: jane!.uuid,
      login: "jane.doe",
      displayName: "Jane Doe",
      roles: ["user"],
    });
    await expectProblem(
      await t.call("GET", "/user/00000000-0000-4000-8000-000000000000", { token }),
      404,
      "NOT_FOUND",
    );
  });

  test("the search reads wp_users' indexes (MariaDB's plan names them, no full scan)", async () => {
    const [plan] = await wp.admin.query<RowDataPacket[]>(
      `EXPLAIN SELECT ID FROM wp_users WHERE user_login LIKE 'ja%' OR user_email LIKE 'ja%' OR user_nicename LIKE 'ja%'`,
    );
    // Three rows make a scan cheapest; what matters is that every column has an index to use.
    const keys = String((plan as RowDataPacket[])[0]?.possible_keys ?? "");
    for (const key of ["user_login_key", "user_email", "user_nicename"]) expect(keys).toContain(key);
  });
});
