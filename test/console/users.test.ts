// The users screen (API.md §10 /console/users, /console/users/{uuid}): a prefix search of the
// store's users, paged, in the query string; a user's roles, activations, sessions (ended after a
// confirmation page) and device tokens (revoked after one); a cross-site POST changes nothing;
// unknown or malformed uuids are 404s. On SQLite or, with TEST_DATABASE_URL, Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countAuditEvents } from "../../src/services/audit";
import { listDeviceTokensOfUser, listSessionsOfUser } from "../../src/services/user-access";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { makeBook, makeCodes, redeem } from "./fixtures";
import { consoleRequest, expectLoginRedirect, signedInAdmin, textOf } from "./helpers";

describe("console users", () => {
  let t: TestApp;
  let cookie: string;
  let reader: { uuid: string; email: string; token: string };
  let tokenId: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
    reader = await t.user("zelda.reader@example.com");
    // Straight into the store: the registration throttle would stop 27 sign-ups from one address.
    for (let i = 0; i < 27; i++) {
      const email = `zz${String(i).padStart(2, "0")}@example.com`;
      await t.deps.store.register({ email, password: TEST_PASSWORD, firstName: "Zz", lastName: "Test" });
    }
    const book = await makeBook(t, "Zelda's Book");
    const [code] = await makeCodes(t, book.id, 1);
    await redeem(t, reader.token, code!.code);
    const made = await t.call("POST", "/authentication/device-token", {
      token: reader.token,
      json: { name: "Kobo", password: TEST_PASSWORD, scopes: ["opds"] },
    });
    expect(made.status).toBe(201);
    tokenId = ((await made.json()) as { id: number }).id;
  });
  afterAll(() => t.close());

  const get = (path: string) => consoleRequest(t, "GET", path, { cookie });

  test("no session: to the sign-in page", async () => {
    expectLoginRedirect(await consoleRequest(t, "GET", "/console/users?q=ze"), "/console/users?q=ze");
  });

  test("search: a prefix of the e-mail, at least 2 characters, paged in the query string", async () => {
    const short = textOf(await (await get("/console/users?q=z")).text());
    expect(short).toContain("Type at least 2 characters");
    const found = await get("/console/users?q=ZEL");
    expect(found.status).toBe(200);
    const html = await found.text();
    expect(html).toContain(`/console/users/${reader.uuid}`);
    expect(html).toContain('value="ZEL"');
    const first = await (await get("/console/users?q=zz")).text();
    expect(textOf(first)).toContain("Page 1 of 2 · 27 in all");
    expect(first).toContain("zz00@example.com");
    expect(first).not.toContain("zz26@example.com");
    expect(first).toMatch(/href="\/console\/users\?q=zz&amp;sort=email&amp;dir=asc&amp;page=1"/);
    const second = await (await get("/console/users?q=zz&sort=email&dir=asc&page=1")).text();
    expect(second).toContain("zz26@example.com");
    expect(second).not.toContain("zz00@example.com");
    const desc = await (await get("/console/users?q=zz&sort=email&dir=desc")).text();
    expect(desc).toContain("zz26@example.com");
    // htmx searches in place as staff type.
    expect(first).toContain('hx-get="/console/users"');
  });

  test("a user's page: roles, activations, sessions, device tokens", async () => {
    const response = await get(`/console/users/${reader.uuid}`);
    expect(response.status).toBe(200);
    const text = textOf(await response.text());
    expect(text).toContain("E-mail zelda.reader@example.com");
    expect(text).toContain("Roles user");
    expect(text).toContain("Zelda's Book");
    expect(text).toContain("Kobo");
    expect(text).toContain("End all sessions");
  });

  test("unknown and malformed uuids: 404", async () => {
    expect((await get("/console/users/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    expect((await get("/console/users/not-a-uuid")).status).toBe(404);
    expect((await get(`/console/users/${reader.uuid}/device-tokens/999999/revoke`)).status).toBe(404);
  });

  test("cross-site POST: 403, sessions and tokens kept", async () => {
    const evil = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };
    for (const path of [
      `/console/users/${reader.uuid}/sessions/end`,
      `/console/users/${reader.uuid}/device-tokens/${tokenId}/revoke`,
    ]) {
      expect((await consoleRequest(t, "POST", path, { cookie, headers: evil })).status).toBe(403);
    }
    expect((await listSessionsOfUser(t.deps.db, reader.uuid)).length).toBe(1);
    expect((await listDeviceTokensOfUser(t.deps, reader.uuid)).length).toBe(1);
  });

  test("revoke a device token: a confirmation page, then the POST", async () => {
    const path = `/console/users/${reader.uuid}/device-tokens/${tokenId}/revoke`;
    const confirm = await get(path);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toMatch(/<button type="submit"[^>]*>Revoke<\/button>/);
    expect((await listDeviceTokensOfUser(t.deps, reader.uuid)).length).toBe(1);
    const revoked = await consoleRequest(t, "POST", path, { cookie });
    expect(revoked.status).toBe(303);
    expect((await listDeviceTokensOfUser(t.deps, reader.uuid)).length).toBe(0);
    expect(await countAuditEvents(t.deps.db, { action: "devicetoken.revoke" })).toBe(1);
    expect((await consoleRequest(t, "POST", path, { cookie })).status).toBe(404);
  });

  test("end the sessions: a confirmation page, then the POST; the reader's token stops working", async () => {
    const path = `/console/users/${reader.uuid}/sessions/end`;
    expect((await get(path)).status).toBe(200);
    expect((await t.call("GET", "/authentication/me", { token: reader.token })).status).toBe(200);
    const ended = await consoleRequest(t, "POST", path, { cookie });
    expect(ended.status).toBe(303);
    expect(ended.headers.get("location")).toBe(`/console/users/${reader.uuid}?done=sessions-ended`);
    expect((await listSessionsOfUser(t.deps.db, reader.uuid)).length).toBe(0);
    expect((await t.call("GET", "/authentication/me", { token: reader.token })).status).toBe(401);
    expect(await countAuditEvents(t.deps.db, { action: "user.endsessions" })).toBe(1);
  });
});
