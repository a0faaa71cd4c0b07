// Who gets into the console and how (API.md §10): the session gate, the cookie, sign-in and
// sign-out, idle and absolute timeouts, the re-check against the store, cross-site POSTs, and the
// separation of the console's cookie from the API's credentials. On SQLite or, with
// TEST_DATABASE_URL, Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { SESSION_TOUCH_INTERVAL_MS } from "../../src/config";
import { safeNext } from "../../src/console/next-path";
import { queuedWrite } from "../../src/db/transaction";
import { cleanupSessions } from "../../src/jobs/session-cleanup";
import { revokeAdmin } from "../../src/services/admin-grants";
import { cliSource } from "../../src/services/audit";
import { consoleSessionKey } from "../../src/services/console-sessions";
import { ADMIN_EMAIL, createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import {
  COOKIE_NAME,
  consoleRequest,
  cookieSet,
  expectLoginRedirect,
  signedInAdmin,
  signIn,
  textOf,
} from "./helpers";

const MINUTE = 60_000;

describe("console access", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await t.admin();
  });
  afterAll(() => t.close());

  test("no session: 303 to the sign-in page with the page as next", async () => {
    expectLoginRedirect(await consoleRequest(t, "GET", "/console"), "/console");
    expectLoginRedirect(
      await consoleRequest(t, "GET", "/console/books?q=tea&page=2"),
      "/console/books?q=tea&page=2",
    );
    // An unknown page is not revealed to a stranger either.
    expectLoginRedirect(await consoleRequest(t, "GET", "/console/nothing-here"), "/console/nothing-here");
    // A cookie naming no session is no session.
    expectLoginRedirect(await consoleRequest(t, "GET", "/console", { cookie: "x".repeat(43) }), "/console");
  });

  test("the sign-in page: fields labelled E-mail and Password", async () => {
    const response = await consoleRequest(t, "GET", "/console/login?next=%2Fconsole%2Fbooks");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/<label for="field-email">E-mail/);
    expect(html).toMatch(/<label for="field-password">Password/);
    expect(html).toContain('name="next" value="/console/books"');
  });

  test("sign-in: the __Host- cookie exactly, a new id each time, only its digest stored", async () => {
    const response = await consoleRequest(t, "POST", "/console/login", {
      form: { email: ADMIN_EMAIL, password: TEST_PASSWORD, next: "/console/books?q=a" },
    });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/console/books?q=a");
    const setCookie = response.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(
      new RegExp(`^${COOKIE_NAME}=[A-Za-z0-9_-]{43}; Path=/; Secure; HttpOnly; SameSite=Strict$`),
    );
    expect(setCookie).not.toMatch(/max-age|expires|domain/i);
    const first = cookieSet(response)!;
    const second = await signIn(t);
    expect(second).not.toBe(first);
    const rows = await t.deps.db.orm.select().from(t.deps.db.tables.consoleSession);
    const ids = rows.map((row) => row.id);
    expect(ids).toContain(consoleSessionKey(first));
    expect(ids).toContain(consoleSessionKey(second));
    expect(ids).not.toContain(first);
    // Both sessions work: the dashboard answers.
    for (const cookie of [first, second]) {
      expect((await consoleRequest(t, "GET", "/console", { cookie })).status).toBe(200);
    }
  });

  test("wrong password and unknown user: one message, the e-mail kept, no cookie", async () => {
    const wrong = await consoleRequest(t, "POST", "/console/login", {
      form: { email: ADMIN_EMAIL, password: "not the password" },
    });
    const unknown = await consoleRequest(t, "POST", "/console/login", {
      form: { email: "nobody@example.com", password: "not the password" },
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(cookieSet(wrong)).toBeUndefined();
    const wrongHtml = await wrong.text();
    const unknownHtml = await unknown.text();
    expect(textOf(wrongHtml)).toContain("The e-mail or password is wrong.");
    expect(unknownHtml.replace("nobody@example.com", ADMIN_EMAIL)).toBe(wrongHtml);
    expect(unknownHtml).toContain('value="nobody@example.com"');
  });

  test("empty fields: errors beside the fields, the e-mail kept", async () => {
    const response = await consoleRequest(t, "POST", "/console/login", {
      form: { email: "someone@example.com", password: "" },
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toMatch(/id="field-password"[^>]*aria-invalid="true"[^>]*aria-describedby="error-password"/);
    expect(html).toContain('<p class="field-error" id="error-password">Enter your password.</p>');
    expect(html).toContain('value="someone@example.com"');
  });

  test("a plain user: 'This account has no access to the console', no session", async () => {
    const reader = await t.user();
    const response = await consoleRequest(t, "POST", "/console/login", {
      form: { email: reader.email, password: TEST_PASSWORD },
    });
    expect(response.status).toBe(403);
    expect(cookieSet(response)).toBeUndefined();
    expect(textOf(await response.text())).toContain("This account has no access to the console");
  });

  test("sign-out: the session ends, the cookie is cleared, Clear-Site-Data", async () => {
    const cookie = await signIn(t);
    const response = await consoleRequest(t, "POST", "/console/logout", { cookie });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/console/login?done=signed-out");
    expect(response.headers.get("clear-site-data")).toBe('"cookies"');
    expect(response.headers.get("set-cookie")).toMatch(
      new RegExp(`^${COOKIE_NAME}=; .*Expires=Thu, 01 Jan 1970`),
    );
    expectLoginRedirect(await consoleRequest(t, "GET", "/console", { cookie }), "/console");
  });

  test("next: only ever a /console/ path (open-redirect attempts go to the dashboard)", async () => {
    const attempts = [
      "//evil.example",
      "//evil.example/console",
      "/\\evil.example",
      "\\\\evil.example",
      "/console/../x",
      "/console/./../admin",
      "/console/%2e%2e/x",
      "/console/%2E%2E%2Fx",
      "/console%2f..%2fx",
      "/console/%5c%5cevil",
      "/console\\..\\x",
      "https://evil.example/console",
      "javascript:alert(1)",
      "/consolex",
      "/console//evil.example",
      "console/books",
      "/console/\nx",
      " /console",
      "",
    ];
    for (const next of attempts) expect([next, safeNext(next)]).toEqual([next, "/console"]);
    for (const next of ["/console", "/console/books", "/console/books/7?tab=versions", "/console?x=1"]) {
      expect(safeNext(next)).toBe(next);
    }
    for (const next of ["//evil.example", "/console/../x", "/\\evil.example"]) {
      const response = await consoleRequest(t, "POST", "/console/login", {
        form: { email: ADMIN_EMAIL, password: TEST_PASSWORD, next },
      });
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/console");
      const page = await consoleRequest(t, "GET", `/console/login?next=${encodeURIComponent(next)}`);
      expect(await page.text()).toContain('name="next" value="/console"');
    }
  });

  test("cross-site POSTs: 403 and nothing changes", async () => {
    const cookie = await signIn(t);
    const before = (await t.deps.db.orm.select().from(t.deps.db.tables.consoleSession)).length;
    const attempts: Record<string, string>[] = [
      { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
      { Origin: "https://evil.example" },
      // A same-origin Origin does not outweigh a browser's own word that the request is cross-site.
      { Origin: "http://localhost", "Sec-Fetch-Site": "cross-site" },
      { "Sec-Fetch-Site": "same-site" },
      { Origin: "null" },
    ];
    for (const headers of attempts) {
      const logout = await consoleRequest(t, "POST", "/console/logout", {
        cookie,
        headers,
        sameOrigin: false,
      });
      expect([headers, logout.status]).toEqual([headers, 403]);
      expect(logout.headers.get("set-cookie")).toBeNull();
      const login = await consoleRequest(t, "POST", "/console/login", {
        form: { email: ADMIN_EMAIL, password: TEST_PASSWORD },
        headers,
        sameOrigin: false,
      });
      expect(login.status).toBe(403);
      expect(cookieSet(login)).toBeUndefined();
    }
    // Neither Origin nor Sec-Fetch-Site (no browser sends such a POST): refused too.
    const bare = await consoleRequest(t, "POST", "/console/logout", { cookie, sameOrigin: false });
    expect(bare.status).toBe(403);
    // A body that no form sends (hono/csrf alone would not look at it).
    const json = await consoleRequest(t, "POST", "/console/logout", {
      cookie,
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(json.status).toBe(403);
    expect((await t.deps.db.orm.select().from(t.deps.db.tables.consoleSession)).length).toBe(before);
    expect((await consoleRequest(t, "GET", "/console", { cookie })).status).toBe(200);
  });

  test("the JSON API refuses the console's cookie; the console refuses Bearer and Basic", async () => {
    const { cookie } = await signedInAdmin(t);
    const admin = await t.admin();
    const api = await t.app.request("/book/count", { headers: { Cookie: `${COOKIE_NAME}=${cookie}` } });
    expect(api.status).toBe(401);
    const apiAdmin = await t.app.request("/apk", { headers: { Cookie: `${COOKIE_NAME}=${cookie}` } });
    expect(apiAdmin.status).toBe(401);
    expect((await t.call("GET", "/apk", { token: admin.token })).status).toBe(200);
    const bearer = await consoleRequest(t, "GET", "/console", {
      headers: { Authorization: `Bearer ${admin.token}` },
    });
    expectLoginRedirect(bearer, "/console");
    const basic = await consoleRequest(t, "GET", "/console", {
      headers: { Authorization: `Basic ${btoa(`${ADMIN_EMAIL}:${TEST_PASSWORD}`)}` },
    });
    expectLoginRedirect(basic, "/console");
  });

  test("throttled like POST /authentication/login: the same counters, 429 with Retry-After", async () => {
    const u = await createTestApp();
    try {
      await u.admin();
      for (let i = 0; i < 10; i++) {
        const failed = await consoleRequest(u, "POST", "/console/login", {
          form: { email: ADMIN_EMAIL, password: `wrong ${i}` },
        });
        expect(failed.status).toBe(401);
      }
      const throttled = await consoleRequest(u, "POST", "/console/login", {
        form: { email: ADMIN_EMAIL, password: TEST_PASSWORD },
      });
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(cookieSet(throttled)).toBeUndefined();
      // The API's login counts the console's failures: the same throttle.
      const api = await u.call("POST", "/authentication/login", {
        json: { email: ADMIN_EMAIL, password: TEST_PASSWORD },
      });
      expect(api.status).toBe(429);
    } finally {
      await u.close();
    }
  });
});

describe("console session lifetime", () => {
  let t: TestApp;

  /** The store user's WordPress roles, changed behind the app's back (as the shop does). */
  async function setCapabilities(email: string, serialized: string): Promise<void> {
    const { storeUser, storeUsermeta } = t.deps.db.tables;
    const [row] = await t.deps.db.orm
      .select({ id: storeUser.id })
      .from(storeUser)
      .where(eq(storeUser.userEmail, email));
    await queuedWrite(t.deps.db, (tx) =>
      tx.orm
        .update(storeUsermeta)
        .set({ metaValue: serialized })
        .where(and(eq(storeUsermeta.userId, row!.id), eq(storeUsermeta.metaKey, "wp_capabilities"))),
    );
  }
  beforeAll(async () => {
    t = await createTestApp();
    await t.admin();
  });
  afterAll(() => t.close());

  test("idles out after CONSOLE_IDLE_TIMEOUT (30m); use keeps it alive", async () => {
    const cookie = await signIn(t);
    t.clock.advance(20 * MINUTE);
    expect((await consoleRequest(t, "GET", "/console", { cookie })).status).toBe(200);
    t.clock.advance(20 * MINUTE);
    expect((await consoleRequest(t, "GET", "/console", { cookie })).status).toBe(200);
    t.clock.advance(30 * MINUTE);
    expectLoginRedirect(await consoleRequest(t, "GET", "/console", { cookie }), "/console");
  });

  test("ends CONSOLE_SESSION_TTL (12h) after sign-in, however used", async () => {
    const cookie = await signIn(t);
    for (let elapsed = 0; elapsed < 12 * 60 - 20; elapsed += 20) {
      t.clock.advance(20 * MINUTE);
      expect((await consoleRequest(t, "GET", "/console", { cookie })).status).toBe(200);
    }
    t.clock.advance(20 * MINUTE);
    expectLoginRedirect(await consoleRequest(t, "GET", "/console", { cookie }), "/console");
  });

  test("a demoted admin is out within a minute, the row gone", async () => {
    const cookie = await signIn(t);
    await revokeAdmin(t.deps, cliSource, ADMIN_EMAIL);
    try {
      t.clock.advance(31_000);
      expectLoginRedirect(await consoleRequest(t, "GET", "/console", { cookie }), "/console");
      const rows = await t.deps.db.orm.select().from(t.deps.db.tables.consoleSession);
      expect(rows.map((row) => row.id)).not.toContain(consoleSessionKey(cookie));
    } finally {
      await t.grantAdmin(ADMIN_EMAIL);
    }
  });

  test("a shop administrator demoted in the store: served until the re-check, out within 60 s", async () => {
    const user = await t.user();
    await setCapabilities(user.email, 'a:1:{s:13:"administrator";b:1;}');
    const cookie = await signIn(t, user.email);
    expect((await consoleRequest(t, "GET", "/console/books", { cookie })).status).toBe(200);
    await setCapabilities(user.email, 'a:1:{s:8:"customer";b:1;}');
    // Before the re-check interval (SESSION_TOUCH_INTERVAL_MS, 30 s) the row's role still serves…
    t.clock.advance(10_000);
    expect((await consoleRequest(t, "GET", "/console/books", { cookie })).status).toBe(200);
    // …and the first request after it asks the store: the session ends, well within 60 s.
    t.clock.advance(SESSION_TOUCH_INTERVAL_MS);
    expectLoginRedirect(await consoleRequest(t, "GET", "/console/books", { cookie }), "/console/books");
    const rows = await t.deps.db.orm.select().from(t.deps.db.tables.consoleSession);
    expect(rows.map((row) => row.id)).not.toContain(consoleSessionKey(cookie));
    // A reader still, not an admin: signing in again is refused.
    const again = await consoleRequest(t, "POST", "/console/login", {
      form: { email: user.email, password: TEST_PASSWORD },
    });
    expect(again.status).toBe(403);
  });

  test("the session cleanup job deletes ended console sessions", async () => {
    const old = await signIn(t);
    t.clock.advance(10 * MINUTE);
    const recent = await signIn(t);
    t.clock.advance(25 * MINUTE); // `old` is idle for 35 minutes, `recent` for 25
    const removed = await cleanupSessions(t.deps);
    expect(removed.consoleSessions).toBeGreaterThanOrEqual(1);
    const ids = (await t.deps.db.orm.select().from(t.deps.db.tables.consoleSession)).map((row) => row.id);
    expect(ids).toContain(consoleSessionKey(recent));
    expect(ids).not.toContain(consoleSessionKey(old));
  });
});
