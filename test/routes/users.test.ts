// GET /user and GET /user/{userUUID} over the embedded store (API.md §10): a prefix of e-mail,
// login, first or last name, case-insensitive, paged and sorted, answered from indexes; each user
// with the roles bookdist gives them. The WordPress store's search: test/store/wordpress-users.test.ts.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "@hono/zod-openapi";
import { User } from "../../src/routes/authentication/authentication.schemas";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const Users = z.array(User);
const PASSWORD = "correct horse battery staple";

describe("user search and look-up", () => {
  let t: TestApp;
  let admin: { token: string; uuid: string; email: string };
  let reader: { token: string };
  const uuids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
    const people = [
      { key: "jane", email: "Jane.Doe@Example.com", firstName: "Jane", lastName: "Doe" },
      { key: "janet", email: "janet@example.org", firstName: "Janet", lastName: "O'Brien & Co" },
      { key: "bob", email: "bob@example.net", firstName: "Robert", lastName: "Janssen" },
      { key: "zoe", email: "zoe@example.net", firstName: "Zoë", lastName: "Ångström" },
    ];
    for (const person of people) {
      const { key, ...body } = person;
      const response = await t.call("POST", "/authentication/register", {
        json: { ...body, password: PASSWORD },
      });
      expect(response.status).toBe(201);
      uuids[key] = ((await response.json()) as { user: { uuid: string } }).user.uuid;
    }
  });
  afterAll(() => t.close());

  const search = async (query: string) => {
    const response = await t.call("GET", `/user?${query}`, { token: admin.token });
    expect(response.status).toBe(200);
    return { response, users: await bodyAs(response, Users) };
  };

  test("a prefix of e-mail, login, first or last name finds the user, whatever the case", async () => {
    const { users, response } = await search("q=JAN");
    // jane by e-mail and first name, janet by e-mail, bob by last name (Janssen).
    expect(users.map((user) => user.uuid).sort()).toEqual([uuids.jane!, uuids.janet!, uuids.bob!].sort());
    expect(response.headers.get("X-Total-Count")).toBe("3");
    expect((await search("q=robe")).users.map((user) => user.uuid)).toEqual([uuids.bob!]);
    expect((await search("q=doe")).users.map((user) => user.uuid)).toEqual([uuids.jane!]);
    // A name stored HTML-escaped (as WordPress does) is found as typed.
    expect((await search(`q=${encodeURIComponent("o'brien &")}`)).users.map((u) => u.uuid)).toEqual([
      uuids.janet!,
    ]);
    // Beyond ASCII, case folds as the database's lower() does: on Postgres by the locale, on
    // SQLite not at all (README "Users"); as typed it is found on both.
    expect((await search(`q=${encodeURIComponent("Ång")}`)).users.map((u) => u.uuid)).toEqual([uuids.zoe!]);
    const folded = (await search(`q=${encodeURIComponent("ång")}`)).users.map((u) => u.uuid);
    expect(folded).toEqual(t.deps.db.dialect === "postgres" ? [uuids.zoe!] : []);
  });

  test("only a prefix: the middle of a name or address matches nothing", async () => {
    const { users, response } = await search("q=example");
    expect(users).toEqual([]);
    expect(response.headers.get("X-Total-Count")).toBe("0");
    // LIKE wildcards are plain characters.
    expect((await search("q=j%25")).users).toEqual([]);
    expect((await search("q=j_")).users).toEqual([]);
  });

  test("paged and sorted like every list", async () => {
    const byEmail = await search("q=jan&sort=email,desc");
    expect(byEmail.users.map((user) => user.email)).toEqual([
      "janet@example.org",
      "Jane.Doe@Example.com",
      "bob@example.net",
    ]);
    const page = await search("q=jan&sort=email&size=2&page=1");
    expect(page.users.map((user) => user.email)).toEqual(["janet@example.org"]);
    expect(page.response.headers.get("X-Total-Count")).toBe("3");
    expect(page.response.headers.get("Link")).toContain('rel="prev"');
    const past = await search("q=jan&size=2&page=5");
    expect(past.users).toEqual([]);
  });

  test("each user with the fields of User and their roles", async () => {
    const { users } = await search(`q=${encodeURIComponent(admin.email.slice(0, 6))}`);
    const found = users.find((user) => user.uuid === admin.uuid);
    expect(found?.roles).toEqual(["user", "admin"]);
    const jane = (await search("q=jane.doe")).users[0];
    expect(jane).toEqual({
      uuid: uuids.jane!,
      email: "Jane.Doe@Example.com",
      login: expect.any(String),
      displayName: "Jane Doe",
      firstName: "Jane",
      lastName: "Doe",
      roles: ["user"],
    });
  });

  test("q is required and at least 2 characters; an unknown sort field is refused", async () => {
    for (const query of [
      "",
      "q=",
      "q=j",
      "q=%20j%20",
      "q=jan&sort=password",
      `q=${"a".repeat(101)}`,
      "q=a%00b",
    ]) {
      const response = await t.call("GET", `/user?${query}`, { token: admin.token });
      await expectProblem(response, 400, "VALIDATION_FAILED");
    }
  });

  test("GET /user/{userUUID}: the user, 404 for an unknown uuid, 400 for a malformed one", async () => {
    const response = await t.call("GET", `/user/${uuids.janet}`, { token: admin.token });
    expect(response.status).toBe(200);
    expect(await bodyAs(response, User)).toMatchObject({
      uuid: uuids.janet!,
      firstName: "Janet",
      lastName: "O'Brien & Co",
      roles: ["user"],
    });
    const hal = await t.call("GET", `/user/${uuids.janet}`, {
      token: admin.token,
      headers: { Accept: "application/hal+json" },
    });
    expect(((await hal.json()) as { _links: { self: { href: string } } })._links.self.href).toBe(
      `/user/${uuids.janet}`,
    );
    await expectProblem(
      await t.call("GET", "/user/00000000-0000-4000-8000-000000000000", { token: admin.token }),
      404,
      "NOT_FOUND",
    );
    await expectProblem(
      await t.call("GET", `/user/${uuids.janet!.toUpperCase()}`, { token: admin.token }),
      400,
      "VALIDATION_FAILED",
    );
  });

  test("admins only: 401 without credentials, 403 for a reader", async () => {
    await expectProblem(await t.call("GET", "/user?q=jan"), 401, "UNAUTHORIZED");
    await expectProblem(await t.call("GET", "/user?q=jan", { token: reader.token }), 403, "FORBIDDEN");
    await expectProblem(
      await t.call("GET", `/user/${uuids.jane}`, { token: reader.token }),
      403,
      "FORBIDDEN",
    );
  });

  test("the search reads indexes: no full scan of the users or their meta (SQLite's plan)", () => {
    if (t.database.dialect !== "sqlite") return;
    const connection = new SqliteConnection(t.database.url.slice("sqlite:".length), { readonly: true });
    try {
      const plan = connection
        .query<{ detail: string }, []>(
          `EXPLAIN QUERY PLAN SELECT id FROM store_user WHERE (lower(user_email) >= 'ja' AND lower(user_email) < 'jb')
           OR (lower(user_login) >= 'ja' AND lower(user_login) < 'jb')
           OR id IN (SELECT user_id FROM store_usermeta WHERE store_usermeta.meta_key IN ('first_name', 'last_name')
                     AND lower(meta_value) >= 'ja' AND lower(meta_value) < 'jb') ORDER BY id LIMIT 20`,
        )
        .all()
        .map((row) => row.detail);
      expect(plan.filter((line) => /^SCAN (store_user|store_usermeta)\b/.test(line))).toEqual([]);
      expect(plan.some((line) => line.includes("store_usermeta_name_idx"))).toBe(true);
    } finally {
      connection.close();
    }
  });
});
