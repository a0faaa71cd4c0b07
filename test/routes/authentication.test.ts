import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { cleanupSessions } from "../../src/jobs/session-cleanup";
import type { ErrorCode } from "../../src/lib/problems";
import { LogoutResult, Session, User } from "../../src/routes/authentication/authentication.schemas";
import { bodyAs, expectProblem } from "../helpers/responses";
import { ADMIN_EMAIL, createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

const DAY = 86_400_000;
const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;

describe("registration and login", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("register answers 201 with a Session of the new user", async () => {
    const response = await t.call("POST", "/authentication/register", {
      json: {
        email: "  Ada.Lovelace@Example.com ",
        password: TEST_PASSWORD,
        firstName: "Ada",
        lastName: "Lovelace",
      },
    });
    expect(response.status).toBe(201);
    const session = await bodyAs(response, Session);
    expect(session.tokenType).toBe("Bearer");
    expect(session.user).toMatchObject({
      email: "Ada.Lovelace@Example.com",
      login: "ada.lovelace",
      displayName: "Ada Lovelace",
      firstName: "Ada",
      lastName: "Lovelace",
      roles: ["user"],
    });
    expect(new Date(session.expiresAt).getTime()).toBe(t.clock.now().getTime() + 30 * DAY);
  });

  test("register refuses a missing, malformed or taken e-mail and a short password", async () => {
    const cases: Array<[unknown, number, ErrorCode]> = [
      [{ password: TEST_PASSWORD }, 400, "EMAIL_MISSING"],
      [{ email: "   ", password: TEST_PASSWORD }, 400, "EMAIL_MISSING"],
      [{ email: "not-an-email", password: TEST_PASSWORD }, 400, "EMAIL_MALFORMED"],
      [{ email: "ADA.LOVELACE@example.com", password: TEST_PASSWORD }, 409, "EMAIL_ALREADY_EXISTS"],
      [{ email: "short@example.com", password: "1234567" }, 400, "VALIDATION_FAILED"],
    ];
    for (const [json, status, code] of cases) {
      const response = await t.call("POST", "/authentication/register", { json });
      await expectProblem(response, status, code);
    }
  });

  test("login by e-mail or login name, any case", async () => {
    for (const email of ["ada.lovelace@example.com", "ADA.LOVELACE"]) {
      const response = await t.call("POST", "/authentication/login", {
        json: { email, password: TEST_PASSWORD },
      });
      expect(response.status).toBe(200);
      expect((await bodyAs(response, Session)).user.email).toBe("Ada.Lovelace@Example.com");
    }
  });

  test("an unknown user and a wrong password get the same answer", async () => {
    const wrong = await t.call("POST", "/authentication/login", {
      json: { email: "ada.lovelace@example.com", password: "nope-nope" },
    });
    const unknown = await t.call("POST", "/authentication/login", {
      json: { email: "nobody@example.com", password: "nope-nope" },
    });
    const a = await expectProblem(wrong, 401, "AUTHENTICATION_FAILED");
    const b = await expectProblem(unknown, 401, "AUTHENTICATION_FAILED");
    expect({ ...a, instance: "" }).toEqual({ ...b, instance: "" });
  });

  test("me answers the caller; an operator's grant makes an admin", async () => {
    const admin = await t.admin();
    const response = await t.call("GET", "/authentication/me", { token: admin.token });
    expect(response.status).toBe(200);
    const me = await bodyAs(response, User);
    expect(me).toMatchObject({ uuid: admin.uuid, email: ADMIN_EMAIL, roles: ["user", "admin"] });
  });
});

describe("tokens and sessions", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const me = (token: string) => t.call("GET", "/authentication/me", { token });

  test("logout ends the session at once; other sessions live on", async () => {
    const first = await t.user("two.sessions@example.com");
    const second = await t.call("POST", "/authentication/login", {
      json: { email: first.email, password: TEST_PASSWORD },
    });
    const secondToken = (await bodyAs(second, Session)).token;
    const out = await t.call("POST", "/authentication/logout", { token: first.token });
    expect(out.status).toBe(200);
    expect(await bodyAs(out, LogoutResult)).toEqual({ loggedOut: true, sessionsEnded: 1 });
    const after = await me(first.token);
    await expectProblem(after, 401, "AUTHENTICATION_FAILED");
    expect((await me(secondToken)).status).toBe(200);
  });

  test("logout with allSessions ends all of them; an empty JSON body is fine", async () => {
    const user = await t.user();
    const again = await t.call("POST", "/authentication/login", {
      json: { email: user.email, password: TEST_PASSWORD },
    });
    const other = (await bodyAs(again, Session)).token;
    const empty = await t.call("POST", "/authentication/logout", {
      token: other,
      headers: { "Content-Type": "application/json" },
      body: "",
    });
    expect(empty.status).toBe(200);
    const third = await t.call("POST", "/authentication/login", {
      json: { email: user.email, password: TEST_PASSWORD },
    });
    const thirdToken = (await bodyAs(third, Session)).token;
    const all = await t.call("POST", "/authentication/logout", {
      token: thirdToken,
      json: { allSessions: true },
    });
    expect(await bodyAs(all, LogoutResult)).toEqual({ loggedOut: true, sessionsEnded: 2 });
    expect((await me(user.token)).status).toBe(401);
  });

  test("a token stops working at its expiry and after idling", async () => {
    const user = await t.user();
    t.clock.advance(13 * DAY);
    expect((await me(user.token)).status).toBe(200); // touches last_seen_at
    t.clock.advance(13 * DAY);
    expect((await me(user.token)).status).toBe(200);
    t.clock.advance(5 * DAY); // past the 30-day lifetime
    expect((await me(user.token)).status).toBe(401);

    const idle = await t.user();
    t.clock.advance(14 * DAY + 1000);
    expect((await me(idle.token)).status).toBe(401);
  });

  test("a token is a standard HS256 JWT: node:crypto's HMAC of its first two parts under the secret", async () => {
    const user = await t.user();
    const [header, payload, signature] = user.token.split(".") as [string, string, string];
    expect(JSON.parse(Buffer.from(header, "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
    const expected = createHmac("sha256", t.deps.jwtSecret)
      .update(`${header}.${payload}`)
      .digest("base64url");
    expect(signature).toBe(expected);
  });

  test("forged, alg:none, malformed and foreign tokens are refused", async () => {
    const user = await t.user();
    const [header, payload] = user.token.split(".") as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const none = `${encode({ alg: "none", typ: "JWT" })}.${encode(claims)}.`;
    const adminClaims = `${header}.${encode({ ...claims, roles: ["user", "admin"] })}.${user.token.split(".")[2]}`;
    const otherKey = (() => {
      const input = `${header}.${payload}`;
      return `${input}.${createHmac("sha256", "another-secret-another-secret-!!").update(input).digest("base64url")}`;
    })();
    const hs512 = `${encode({ alg: "HS512", typ: "JWT" })}.${payload}.${user.token.split(".")[2]}`;
    // The base64url decoder ignores stray characters and a last character's unused bits: each of
    // these decodes to the right signature bytes, yet is not the token that was issued.
    const signature = user.token.split(".")[2]!;
    const last = signature.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sameBits = alphabet[alphabet.indexOf(last) ^ 1]!;
    const lastCharChanged = `${user.token.slice(0, -1)}${sameBits}`;
    expect(Buffer.from(lastCharChanged.split(".")[2]!, "base64url")).toEqual(
      Buffer.from(signature, "base64url"),
    );
    const malleable = [`${user.token}=`, `${user.token}!`, `${user.token}==`, lastCharChanged];
    malleable.push(
      `${user.token.split(".").slice(0, 2).join(".")}.${signature.slice(0, 10)} ${signature.slice(10)}`,
    );
    for (const token of [
      none,
      adminClaims,
      otherKey,
      hs512,
      "not.a.jwt",
      "abc",
      `${user.token}x`,
      ...malleable,
    ]) {
      const response = await me(token);
      await expectProblem(response, 401, "AUTHENTICATION_FAILED");
    }
    expect((await me(user.token)).status).toBe(200);
  });

  test("no credentials → 401 UNAUTHORIZED with WWW-Authenticate; unknown scheme → 401", async () => {
    const none = await t.call("GET", "/authentication/me");
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    await expectProblem(none, 401, "UNAUTHORIZED");
    const digest = await t.call("GET", "/authentication/me", { headers: { Authorization: "Digest abc" } });
    await expectProblem(digest, 401, "AUTHENTICATION_FAILED");
  });

  test("HTTP Basic authenticates a store user without a session", async () => {
    const user = await t.user("scripts@example.com");
    const ok = await t.call("GET", "/authentication/me", {
      headers: { Authorization: basic(user.email, TEST_PASSWORD) },
    });
    expect(ok.status).toBe(200);
    expect((await bodyAs(ok, User)).uuid).toBe(user.uuid);
    const wrong = await t.call("GET", "/authentication/me", {
      headers: { Authorization: basic(user.email, "wrong-password") },
    });
    expect(wrong.status).toBe(401);
    const logout = await t.call("POST", "/authentication/logout", {
      headers: { Authorization: basic(user.email, TEST_PASSWORD) },
    });
    expect(await bodyAs(logout, LogoutResult)).toEqual({ loggedOut: true, sessionsEnded: 0 });
  });

  test("a successful Basic check is cached for at most 60 s", async () => {
    const user = await t.user();
    const header = { Authorization: basic(user.email, TEST_PASSWORD) };
    let verifications = 0;
    const store = t.deps.store;
    const original = store.authenticate.bind(store);
    store.authenticate = async (login, password) => {
      verifications++;
      return original(login, password);
    };
    try {
      for (let i = 0; i < 3; i++)
        expect((await t.call("GET", "/authentication/me", { headers: header })).status).toBe(200);
      expect(verifications).toBe(1);
      t.clock.advance(61_000);
      expect((await t.call("GET", "/authentication/me", { headers: header })).status).toBe(200);
      expect(verifications).toBe(2);
    } finally {
      store.authenticate = original;
    }
  });

  test("the cleanup job deletes expired and idle sessions only", async () => {
    const { db } = t.deps;
    const fresh = await t.user();
    t.clock.advance(10 * DAY);
    const recent = await t.user();
    t.clock.advance(5 * DAY); // `fresh` is now idle for 15 days, `recent` for 5
    const removed = await cleanupSessions({ db, config: t.config, clock: t.clock });
    expect(removed.sessions).toBeGreaterThanOrEqual(1);
    const remaining = await db.orm.select().from(db.tables.userSession);
    const owners = remaining.map((s) => s.userUuid);
    expect(owners).toContain(recent.uuid);
    expect(owners).not.toContain(fresh.uuid);
    expect(await cleanupSessions({ db, config: t.config, clock: t.clock })).toEqual({
      sessions: 0,
      consoleSessions: 0,
      deviceTokens: 0,
      rateLimits: 0,
      activationEnds: 0,
    });
  });
});

describe("throttling", () => {
  test("10 failed logins per address and login → 429 with Retry-After, also for the right password", async () => {
    const t = await createTestApp();
    const user = await t.user("target@example.com");
    for (let i = 0; i < 10; i++) {
      const response = await t.call("POST", "/authentication/login", {
        json: { email: user.email, password: `wrong-${i}-xx` },
      });
      expect(response.status).toBe(401);
    }
    const blocked = await t.call("POST", "/authentication/login", {
      json: { email: user.email, password: TEST_PASSWORD },
    });
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    await expectProblem(blocked, 429, "TOO_MANY_REQUESTS");
    t.clock.advance(15 * 60_000);
    const later = await t.call("POST", "/authentication/login", {
      json: { email: user.email, password: TEST_PASSWORD },
    });
    expect(later.status).toBe(200);
    await t.close();
  });

  test("registrations: 20 per address per hour", async () => {
    const t = await createTestApp();
    for (let i = 0; i < 20; i++) {
      const response = await t.call("POST", "/authentication/register", {
        json: { email: `r${i}@example.com`, password: "x".repeat(8) },
      });
      expect(response.status).toBe(201);
    }
    const blocked = await t.call("POST", "/authentication/register", {
      json: { email: "r20@example.com", password: "x".repeat(8) },
    });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("3600");
    await t.close();
  });

  test("THROTTLE=off turns it off", async () => {
    const t = await createTestApp({ env: { THROTTLE: "off" } });
    const user = await t.user();
    for (let i = 0; i < 12; i++) {
      await t.call("POST", "/authentication/login", {
        json: { email: user.email, password: "wrong-password" },
      });
    }
    const response = await t.call("POST", "/authentication/login", {
      json: { email: user.email, password: TEST_PASSWORD },
    });
    expect(response.status).toBe(200);
    await t.close();
  });
});
