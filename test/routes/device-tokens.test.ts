// Device tokens (app passwords, README "Reading apps"): made with the account's password again,
// shown once, stored as digests only, good only on the operations of their scopes (the test-only
// probe operations, test/helpers/scope-probe.ts), ended by revocation, expiry, a password change
// or the account's deletion in the store. Runs on SQLite, and on Postgres with TEST_DATABASE_URL.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { type App, createApp } from "../../src/app";
import { hashPassword } from "../../src/auth/passwords";
import { queuedWrite, withTransaction } from "../../src/db/transaction";
import { cleanupSessions, ENDED_DEVICE_TOKENS_KEPT_MS } from "../../src/jobs/session-cleanup";
import { AppError } from "../../src/lib/problems";
import { CreatedDeviceToken, DeviceToken } from "../../src/routes/device-tokens/device-tokens.schemas";
import { MAX_DEVICE_TOKENS_PER_USER, principalFromDeviceTokenMd5 } from "../../src/services/device-tokens";
import { EmbeddedStore } from "../../src/store/embedded";
import { bodyAs, expectProblem } from "../helpers/responses";
import { ScopeProbeAnswer, scopeProbePath, scopeProbeRouter } from "../helpers/scope-probe";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

const MINUTE = 60_000;
const TOKENS = "/authentication/device-token";
const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const md5 = (text: string) => createHash("md5").update(text).digest("hex");

describe("device tokens", () => {
  let t: TestApp;
  /** Every SQL statement the app runs, for the tests that count them. */
  const queries: string[] = [];
  /** A second instance on the same data: its own caches, as another replica has. */
  let other: App;

  beforeAll(async () => {
    t = await createTestApp({ scopeProbe: true, onQuery: (query) => queries.push(query) });
    other = createApp(t.deps, [[scopeProbeRouter()]]);
  });
  afterAll(() => t.close());
  // Each test registers its own readers: an hour apart, they stay under the registration limit
  // (20 an hour per client address) that every request of this file shares.
  beforeEach(() => t.clock.advance(61 * MINUTE));

  async function make(
    session: { token: string },
    input: Record<string, unknown> = {},
  ): Promise<ReturnType<typeof CreatedDeviceToken.parse>> {
    const response = await t.call("POST", TOKENS, {
      token: session.token,
      json: { name: "KOReader", password: TEST_PASSWORD, ...input },
    });
    if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
    return bodyAs(response, CreatedDeviceToken);
  }

  const probe = (scope: "opds" | "sync" | "entitlements", authorization: string, app: App = t.app) =>
    Promise.resolve(app.request(scopeProbePath(scope), { headers: { Authorization: authorization } }));

  async function rowOf(id: number) {
    const { deviceToken } = t.deps.db.tables;
    const [row] = await t.deps.db.orm.select().from(deviceToken).where(eq(deviceToken.id, id));
    return row!;
  }

  test("creation answers the token once: bdt_ + 30 base62 + 6, its prefix, all scopes by default", async () => {
    const reader = await t.user();
    const response = await t.call("POST", TOKENS, {
      token: reader.token,
      json: { name: "  Kobo  ", password: TEST_PASSWORD },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const created = await bodyAs(response, CreatedDeviceToken);
    expect(created.token).toMatch(/^bdt_[0-9A-Za-z]{36}$/);
    expect(created).toMatchObject({
      name: "Kobo",
      prefix: created.token.slice(0, 8),
      scopes: ["opds", "sync", "entitlements"],
      createdAt: t.clock.now().toISOString(),
      lastUsedAt: null,
      expiresAt: null,
    });
    // The list never shows a token again.
    const list = await t.call("GET", TOKENS, { token: reader.token });
    expect(list.status).toBe(200);
    expect(list.headers.get("x-total-count")).toBe("1");
    const text = await list.text();
    expect(text).not.toContain(created.token);
    const listed = DeviceToken.array().parse(JSON.parse(text));
    expect(listed).toEqual([
      {
        id: created.id,
        name: "Kobo",
        prefix: created.prefix,
        scopes: created.scopes,
        createdAt: created.createdAt,
        lastUsedAt: null,
        expiresAt: null,
      },
    ]);
    expect(Object.keys(JSON.parse(text)[0])).not.toContain("token");
  });

  test("the row holds the SHA-256 of the token and of its lower-case hex MD5, never the token", async () => {
    const reader = await t.user();
    const created = await make(reader);
    const row = await rowOf(created.id);
    expect(row.sha256).toBe(sha256(created.token));
    expect(row.md5Sha256).toBe(sha256(md5(created.token)));
    expect(row.userUuid).toBe(reader.uuid);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(created.token);
    expect(stored).not.toContain(created.token.slice(8));
    expect(stored).not.toContain(md5(created.token));
  });

  test("HTTP Basic with the e-mail or login and the token works on its scope's operation", async () => {
    const reader = await t.user();
    const created = await make(reader);
    for (const name of [reader.email, reader.email.toUpperCase(), reader.email.split("@")[0]!]) {
      const response = await probe("opds", basic(name, created.token));
      expect(response.status).toBe(200);
      expect(await bodyAs(response, ScopeProbeAnswer)).toEqual({
        userUuid: reader.uuid,
        email: reader.email,
        roles: ["user"],
        deviceTokenId: created.id,
      });
    }
    // Another account's name with this token, or this name with another's token: refused.
    const someone = await t.user();
    await expectProblem(
      await probe("opds", basic(someone.email, created.token)),
      401,
      "AUTHENTICATION_FAILED",
    );
    const theirs = await make(someone);
    await expectProblem(await probe("opds", basic(reader.email, theirs.token)), 401, "AUTHENTICATION_FAILED");
  });

  test("an admin's token carries no admin role", async () => {
    const admin = await t.admin();
    const created = await make(admin);
    const response = await probe("sync", basic(admin.email, created.token));
    expect((await bodyAs(response, ScopeProbeAnswer)).roles).toEqual(["user"]);
  });

  test("a token authenticates only its scopes", async () => {
    const reader = await t.user();
    const created = await make(reader, { scopes: ["sync"] });
    expect(created.scopes).toEqual(["sync"]);
    const auth = basic(reader.email, created.token);
    expect((await probe("sync", auth)).status).toBe(200);
    await expectProblem(await probe("opds", auth), 401, "AUTHENTICATION_FAILED");
    await expectProblem(await probe("entitlements", auth), 401, "AUTHENTICATION_FAILED");
    // And no operation without a scope takes it, whatever it is.
    for (const path of ["/authentication/me", "/book", "/book/my-books"]) {
      await expectProblem(
        await t.call("GET", path, { headers: { Authorization: auth } }),
        401,
        "AUTHENTICATION_FAILED",
      );
    }
  });

  test("a mistyped token (checksum) is refused without a database lookup", async () => {
    const reader = await t.user();
    const created = await make(reader);
    const at = 10;
    const swapped = created.token[at] === "a" ? "b" : "a";
    const typo = created.token.slice(0, at) + swapped + created.token.slice(at + 1);
    // Warm: the store's and the session's statements are behind us.
    expect((await probe("opds", basic(reader.email, created.token))).status).toBe(200);
    queries.length = 0;
    await expectProblem(await probe("opds", basic(reader.email, typo)), 401, "AUTHENTICATION_FAILED");
    expect(queries).toEqual([]);
    // A well-formed token that does not exist is looked up (and refused).
    const { newDeviceToken } = await import("../../src/auth/device-token-format");
    await expectProblem(
      await probe("opds", basic(reader.email, newDeviceToken())),
      401,
      "AUTHENTICATION_FAILED",
    );
    expect(queries.some((query) => query.includes("device_token"))).toBe(true);
  });

  test("a shop password that starts with bdt_ is never checked as a password outside the scopes", async () => {
    const password = "bdt_but-a-real-shop-password";
    const register = await t.call("POST", "/authentication/register", {
      json: { email: "bdt-user@example.com", password },
    });
    expect(register.status).toBe(201);
    // Login (the JSON operation) takes it; HTTP Basic reads it as a device token and refuses it.
    const login = await t.call("POST", "/authentication/login", {
      json: { email: "bdt-user@example.com", password },
    });
    expect(login.status).toBe(200);
    await expectProblem(
      await t.call("GET", "/authentication/me", {
        headers: { Authorization: basic("bdt-user@example.com", password) },
      }),
      401,
      "AUTHENTICATION_FAILED",
    );
  });

  test("DeviceTokenInput: name 1–100, a password, a non-empty set of known scopes, a future RFC 3339 expiry", async () => {
    const reader = await t.user();
    const future = new Date(t.clock.now().getTime() + MINUTE).toISOString();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: "", password: TEST_PASSWORD }, "name"],
      [{ name: "   ", password: TEST_PASSWORD }, "name"],
      [{ name: "x".repeat(101), password: TEST_PASSWORD }, "name"],
      [{ password: TEST_PASSWORD }, "name"],
      [{ name: "Kobo" }, "password"],
      [{ name: "Kobo", password: TEST_PASSWORD, scopes: [] }, "scopes"],
      [{ name: "Kobo", password: TEST_PASSWORD, scopes: ["admin"] }, "scopes.0"],
      [{ name: "Kobo", password: TEST_PASSWORD, scopes: ["opds", "opds"] }, "scopes"],
      [{ name: "Kobo", password: TEST_PASSWORD, expiresAt: "tomorrow" }, "expiresAt"],
      [{ name: "Kobo", password: TEST_PASSWORD, expiresAt: "0999-01-01T00:00:00Z" }, "expiresAt"],
      [{ name: "Kobo", password: TEST_PASSWORD, expiresAt: t.clock.now().toISOString() }, "expiresAt"],
      [{ name: "Kobo", password: TEST_PASSWORD, expiresAt: "2020-01-01T00:00:00Z" }, "expiresAt"],
    ];
    for (const [json, path] of cases) {
      const problem = await expectProblem(
        await t.call("POST", TOKENS, { token: reader.token, json }),
        400,
        "VALIDATION_FAILED",
      );
      expect(
        problem.errors?.map((error) => error.path),
        JSON.stringify(json),
      ).toContain(path);
    }
    const ok = await make(reader, {
      name: "x".repeat(100),
      expiresAt: future,
      scopes: ["entitlements", "opds"],
    });
    expect(ok).toMatchObject({ expiresAt: future, scopes: ["entitlements", "opds"] });
    // Nothing was made by the refused ones.
    expect((await t.call("GET", TOKENS, { token: reader.token })).headers.get("x-total-count")).toBe("1");
  });

  test("creation needs a session's Bearer token: HTTP Basic and device tokens get 401", async () => {
    const reader = await t.user();
    const created = await make(reader);
    const json = JSON.stringify({ name: "again", password: TEST_PASSWORD });
    for (const authorization of [basic(reader.email, TEST_PASSWORD), basic(reader.email, created.token)]) {
      const response = await t.app.request(TOKENS, {
        method: "POST",
        headers: { Authorization: authorization, "Content-Type": "application/json" },
        body: json,
      });
      await expectProblem(response, 401, "AUTHENTICATION_FAILED");
    }
    await expectProblem(
      await t.app.request(TOKENS, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: json,
      }),
      401,
      "UNAUTHORIZED",
    );
    expect((await t.call("GET", TOKENS, { token: reader.token })).headers.get("x-total-count")).toBe("1");
  });

  test("a wrong password is 401 AUTHENTICATION_FAILED, throttled as login is (429 after 10)", async () => {
    const reader = await t.user();
    const wrong = { name: "Kobo", password: "not the password" };
    for (let i = 0; i < 10; i++) {
      await expectProblem(
        await t.call("POST", TOKENS, { token: reader.token, json: wrong }),
        401,
        "AUTHENTICATION_FAILED",
      );
    }
    const blocked = await t.call("POST", TOKENS, { token: reader.token, json: wrong });
    await expectProblem(blocked, 429, "TOO_MANY_REQUESTS");
    expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
    // The same limit as login's: the account's login attempts from this address are blocked too.
    await expectProblem(
      await t.call("POST", "/authentication/login", {
        json: { email: reader.email, password: TEST_PASSWORD },
      }),
      429,
      "TOO_MANY_REQUESTS",
    );
    t.clock.advance(16 * MINUTE);
    expect(
      (await t.call("POST", TOKENS, { token: reader.token, json: { ...wrong, password: TEST_PASSWORD } }))
        .status,
    ).toBe(201);
  });

  test("expiry: the token stops working at expiresAt and leaves the list", async () => {
    const reader = await t.user();
    const expiresAt = new Date(t.clock.now().getTime() + 10 * MINUTE).toISOString();
    const created = await make(reader, { expiresAt });
    const auth = basic(reader.email, created.token);
    expect((await probe("opds", auth)).status).toBe(200);
    t.clock.advance(10 * MINUTE - 1);
    expect((await probe("opds", auth)).status).toBe(200);
    t.clock.advance(1);
    await expectProblem(await probe("opds", auth), 401, "AUTHENTICATION_FAILED");
    const list = await t.call("GET", TOKENS, { token: reader.token });
    expect(
      DeviceToken.array()
        .parse(await list.json())
        .map((token) => token.id),
    ).not.toContain(created.id);
  });

  test("revocation takes effect at once on every instance; owner or admin only", async () => {
    const reader = await t.user();
    const created = await make(reader);
    const auth = basic(reader.email, created.token);
    // Both instances have just checked (and cached) it.
    expect((await probe("opds", auth)).status).toBe(200);
    expect((await probe("opds", auth, other)).status).toBe(200);
    const someone = await t.user();
    await expectProblem(
      await t.call("DELETE", `${TOKENS}/${created.id}`, { token: someone.token }),
      403,
      "FORBIDDEN",
    );
    expect((await probe("opds", auth)).status).toBe(200);

    const revoked = await t.call("DELETE", `${TOKENS}/${created.id}`, { token: reader.token });
    expect(revoked.status).toBe(200);
    expect((await bodyAs(revoked, DeviceToken)).id).toBe(created.id);
    await expectProblem(await probe("opds", auth), 401, "AUTHENTICATION_FAILED");
    await expectProblem(await probe("opds", auth, other), 401, "AUTHENTICATION_FAILED");
    expect((await rowOf(created.id)).revokedAt?.toISOString()).toBe(t.clock.now().toISOString());
    await expectProblem(
      await t.call("DELETE", `${TOKENS}/${created.id}`, { token: reader.token }),
      404,
      "NOT_FOUND",
    );
    await expectProblem(
      await t.call("DELETE", `${TOKENS}/999999`, { token: reader.token }),
      404,
      "NOT_FOUND",
    );
    expect((await t.call("GET", TOKENS, { token: reader.token })).headers.get("x-total-count")).toBe("0");

    // An admin revokes anyone's.
    const second = await make(reader);
    const admin = await t.admin();
    expect((await t.call("DELETE", `${TOKENS}/${second.id}`, { token: admin.token })).status).toBe(200);
    await expectProblem(await probe("sync", basic(reader.email, second.token)), 401, "AUTHENTICATION_FAILED");
  });

  test("a password changed in the store ends the user's tokens within 60 s, on every instance", async () => {
    const reader = await t.user();
    const created = await make(reader);
    const auth = basic(reader.email, created.token);
    expect((await probe("opds", auth)).status).toBe(200);
    expect((await probe("opds", auth, other)).status).toBe(200);
    const { storeUser } = t.deps.db.tables;
    const userPass = await hashPassword("a brand new password", t.config.passwordHashCost);
    await queuedWrite(t.deps.db, (tx) =>
      tx.orm.update(storeUser).set({ userPass }).where(eq(storeUser.userEmail, reader.email)),
    );
    t.clock.advance(MINUTE);
    await expectProblem(await probe("opds", auth, other), 401, "AUTHENTICATION_FAILED");
    await expectProblem(await probe("opds", auth), 401, "AUTHENTICATION_FAILED");
    expect((await rowOf(created.id)).revokedAt).not.toBeNull();
    // A token made under the new password works.
    const login = await t.call("POST", "/authentication/login", {
      json: { email: reader.email, password: "a brand new password" },
    });
    const session = (await login.json()) as { token: string };
    const fresh = await make(session, { password: "a brand new password" });
    expect((await probe("opds", basic(reader.email, fresh.token))).status).toBe(200);
  });

  test("the account deleted in the store ends its tokens within 60 s", async () => {
    const reader = await t.user();
    const created = await make(reader);
    const auth = basic(reader.email, created.token);
    expect((await probe("entitlements", auth)).status).toBe(200);
    const { storeUser, storeUsermeta } = t.deps.db.tables;
    const [user] = await t.deps.db.orm
      .select({ id: storeUser.id })
      .from(storeUser)
      .where(eq(storeUser.userEmail, reader.email));
    await withTransaction(t.deps.db, async (tx) => {
      await tx.orm.delete(storeUsermeta).where(eq(storeUsermeta.userId, user!.id));
      await tx.orm.delete(storeUser).where(eq(storeUser.id, user!.id));
    });
    t.clock.advance(MINUTE);
    await expectProblem(await probe("entitlements", auth), 401, "AUTHENTICATION_FAILED");
    expect((await rowOf(created.id)).revokedAt).not.toBeNull();
  });

  test(`at most ${MAX_DEVICE_TOKENS_PER_USER} live tokens per user: the next is 409; a revocation frees a place`, async () => {
    const reader = await t.user();
    const made = [];
    for (let i = 0; i < MAX_DEVICE_TOKENS_PER_USER; i++) made.push(await make(reader, { name: `app ${i}` }));
    await expectProblem(
      await t.call("POST", TOKENS, {
        token: reader.token,
        json: { name: "one too many", password: TEST_PASSWORD },
      }),
      409,
      "CONFLICT",
    );
    const list = await t.call("GET", TOKENS, { token: reader.token });
    expect(list.headers.get("x-total-count")).toBe(String(MAX_DEVICE_TOKENS_PER_USER));
    // Another user is not affected.
    await make(await t.user());
    expect((await t.call("DELETE", `${TOKENS}/${made[0]!.id}`, { token: reader.token })).status).toBe(200);
    await make(reader, { name: "in its place" });
  });

  test("parallel creations cannot pass the limit together", async () => {
    const reader = await t.user();
    for (let i = 0; i < MAX_DEVICE_TOKENS_PER_USER - 3; i++) await make(reader, { name: `app ${i}` });
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.call("POST", TOKENS, {
          token: reader.token,
          json: { name: `racer ${i}`, password: TEST_PASSWORD },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
  });

  test("progress-sync clients: a token is found by the SHA-256 of its lower-case hex MD5 (principalFromDeviceTokenMd5)", async () => {
    const reader = await t.user();
    const created = await make(reader, { scopes: ["sync"] });
    const ctx = {
      ...t.deps,
      accountCheck: (await import("../../src/services/runtime")).createRuntime(t.deps).accountCheck,
    };
    const attempt = (scope: "sync" | "opds", userName = reader.email) => ({
      userName,
      scope,
      now: t.clock.now(),
    });
    const key = md5(created.token);
    expect(await principalFromDeviceTokenMd5(ctx, key, attempt("sync"))).toMatchObject({
      userUuid: reader.uuid,
      deviceTokenId: created.id,
      roles: ["user"],
    });
    expect(await principalFromDeviceTokenMd5(ctx, key.toUpperCase(), attempt("sync"))).not.toBeNull();
    expect(await principalFromDeviceTokenMd5(ctx, key, attempt("opds"))).toBeNull();
    expect(await principalFromDeviceTokenMd5(ctx, key, attempt("sync", "someone@example.com"))).toBeNull();
    expect(await principalFromDeviceTokenMd5(ctx, md5(`${created.token}x`), attempt("sync"))).toBeNull();
    expect(await principalFromDeviceTokenMd5(ctx, "not-hex", attempt("sync"))).toBeNull();
    await t.call("DELETE", `${TOKENS}/${created.id}`, { token: reader.token });
    expect(await principalFromDeviceTokenMd5(ctx, key, attempt("sync"))).toBeNull();
  });

  test("the cleanup job deletes tokens revoked or expired more than 30 days ago, and no other", async () => {
    const reader = await t.user();
    const revoked = await make(reader);
    const expiring = await make(reader, {
      expiresAt: new Date(t.clock.now().getTime() + MINUTE).toISOString(),
    });
    const live = await make(reader);
    // Both end at the same moment: one revoked, the other expired.
    t.clock.advance(MINUTE);
    expect((await t.call("DELETE", `${TOKENS}/${revoked.id}`, { token: reader.token })).status).toBe(200);
    t.clock.advance(ENDED_DEVICE_TOKENS_KEPT_MS - 1);
    const ids = async () => {
      const { deviceToken } = t.deps.db.tables;
      const rows = await t.deps.db.orm.select({ id: deviceToken.id }).from(deviceToken);
      return rows.map((row) => row.id);
    };
    await cleanupSessions(t.deps);
    expect(await ids()).toContain(revoked.id);
    expect(await ids()).toContain(expiring.id);
    t.clock.advance(1);
    // Tokens that ended in the tests before this one go too.
    expect((await cleanupSessions(t.deps)).deviceTokens).toBeGreaterThanOrEqual(2);
    const left = await ids();
    expect(left).not.toContain(revoked.id);
    expect(left).not.toContain(expiring.id);
    expect(left).toContain(live.id);
  });

  test("lastUsedAt is written at most once a minute, not per request", async () => {
    const reader = await t.user();
    const created = await make(reader);
    const auth = basic(reader.email, created.token);
    const writes = () => queries.filter((query) => /^update\s+"?`?device_token/i.test(query.trim())).length;
    const usedAt = t.clock.now().toISOString();
    queries.length = 0;
    expect((await probe("opds", auth)).status).toBe(200);
    expect(writes()).toBe(1);
    expect((await rowOf(created.id)).lastUsedAt?.toISOString()).toBe(usedAt);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(10_000);
      expect((await probe("opds", auth)).status).toBe(200);
      expect((await probe("sync", auth, other)).status).toBe(200);
    }
    expect(writes()).toBe(1);
    t.clock.advance(10_000);
    const later = t.clock.now().toISOString();
    expect((await probe("opds", auth)).status).toBe(200);
    expect(writes()).toBe(2);
    const listed = DeviceToken.array().parse(
      await (await t.call("GET", TOKENS, { token: reader.token })).json(),
    );
    expect(listed.find((token) => token.id === created.id)?.lastUsedAt).toBe(later);
  });
});

/** An embedded store whose user lookups can be made to fail as an unreachable shop does. */
class FlakyStore extends EmbeddedStore {
  down = false;
  override async findByUuid(uuid: string) {
    if (this.down) throw new AppError("SERVICE_UNAVAILABLE", "The user store is not reachable right now.");
    return super.findByUuid(uuid);
  }
}

describe("device tokens while the store is out", () => {
  let t: TestApp;
  let store: FlakyStore;
  beforeAll(async () => {
    t = await createTestApp({
      scopeProbe: true,
      store: (deps) => {
        store = new FlakyStore(deps.db, deps.clock, deps.config.passwordHashCost);
        return store;
      },
    });
  });
  afterAll(() => t.close());

  test("a token checked within the minute is served; one due for a check is 503, and nobody's token ends", async () => {
    const reader = await t.user();
    const response = await t.call("POST", TOKENS, {
      token: reader.token,
      json: { name: "KOReader", password: TEST_PASSWORD },
    });
    const { token, id } = await bodyAs(response, CreatedDeviceToken);
    const get = () =>
      t.call("GET", scopeProbePath("opds"), { headers: { Authorization: basic(reader.email, token) } });
    expect((await get()).status).toBe(200);
    store.down = true;
    t.clock.advance(30_000);
    expect((await get()).status).toBe(200);
    t.clock.advance(30_000);
    const unavailable = await get();
    await expectProblem(unavailable, 503, "SERVICE_UNAVAILABLE");
    expect(unavailable.headers.get("retry-after")).toMatch(/^\d+$/);
    store.down = false;
    t.clock.advance(10_000);
    expect((await get()).status).toBe(200);
    const { deviceToken } = t.deps.db.tables;
    const [row] = await t.deps.db.orm.select().from(deviceToken).where(eq(deviceToken.id, id));
    expect(row!.revokedAt).toBeNull();
  });
});
