// A token proves a session, not a role (README, Words used here: re-check): two app instances on
// one database, a fixed clock, and changes made behind the app's back in the store and the grants.
// Within 60 s of clock time every instance answers 403 for a lost role and 401 for a gone account
// or a changed password. Runs on SQLite, and on Postgres with TEST_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { type App, createApp } from "../../src/app";
import { hashPassword } from "../../src/auth/passwords";
import { queuedWrite, withTransaction } from "../../src/db/transaction";
import { AppError } from "../../src/lib/problems";
import { Session } from "../../src/routes/authentication/authentication.schemas";
import { grantAdmin, revokeAdmin } from "../../src/services/admin-grants";
import { cliSource } from "../../src/services/audit";
import type { StoreDirectory } from "../../src/store/directory";
import { EmbeddedStore } from "../../src/store/embedded";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

const MINUTE = 60_000;
const ADMIN_ONLY = "/activation-qr-code/count";
const CAPABILITIES = "wp_capabilities";
const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;

/** An embedded store whose user lookups can be made to fail as an unreachable shop does. */
class FlakyStore extends EmbeddedStore {
  down = false;
  override async findByUuid(uuid: string) {
    if (this.down) throw new AppError("SERVICE_UNAVAILABLE", "The user store is not reachable right now.");
    return super.findByUuid(uuid);
  }
}

describe("live roles and account state, two instances on one database", () => {
  let t: TestApp;
  let other: App;
  let store: FlakyStore;

  beforeAll(async () => {
    t = await createTestApp({
      store: (deps) => {
        store = new FlakyStore(deps.db, deps.clock, deps.config.passwordHashCost);
        return store;
      },
    });
    // The second instance: its own services (sessions' re-checks, Basic cache), the same data.
    other = createApp(t.deps);
  });
  afterAll(() => t.close());

  const onOther = (path: string, headers: Record<string, string>) =>
    Promise.resolve(other.request(path, { headers }));
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function login(email: string): Promise<string> {
    const response = await t.call("POST", "/authentication/login", {
      json: { email, password: TEST_PASSWORD },
    });
    expect(response.status).toBe(200);
    return (await bodyAs(response, Session)).token;
  }

  async function storeUserIdOf(email: string): Promise<number> {
    const { storeUser } = t.deps.db.tables;
    const [row] = await t.deps.db.orm
      .select({ id: storeUser.id })
      .from(storeUser)
      .where(eq(storeUser.userEmail, email));
    return row!.id;
  }

  async function setCapabilities(email: string, serialized: string): Promise<void> {
    const { storeUsermeta } = t.deps.db.tables;
    const userId = await storeUserIdOf(email);
    await queuedWrite(t.deps.db, (tx) =>
      tx.orm
        .update(storeUsermeta)
        .set({ metaValue: serialized })
        .where(and(eq(storeUsermeta.userId, userId), eq(storeUsermeta.metaKey, CAPABILITIES))),
    );
  }

  test("a revoked grant: 403 on the other instance at its next request", async () => {
    const user = await t.user();
    await grantAdmin(t.deps, cliSource, user.email);
    const token = await login(user.email);
    expect((await onOther(ADMIN_ONLY, bearer(token))).status).toBe(200);

    await revokeAdmin(t.deps, cliSource, user.email);
    const response = await onOther(ADMIN_ONLY, bearer(token));
    await expectProblem(response, 403, "FORBIDDEN");
    // The roles claim still says admin; it grants nothing.
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
    expect(claims.roles).toEqual(["user", "admin"]);
    expect((await t.call("GET", "/authentication/me", { token })).status).toBe(200);
  });

  test("a shop administrator demoted in the store: 403 within 60 s on both instances", async () => {
    const user = await t.user();
    await setCapabilities(user.email, 'a:1:{s:13:"administrator";b:1;}');
    const token = await login(user.email);
    expect((await t.call("GET", ADMIN_ONLY, { token })).status).toBe(200);
    expect((await onOther(ADMIN_ONLY, bearer(token))).status).toBe(200);

    await setCapabilities(user.email, 'a:1:{s:8:"customer";b:1;}');
    t.clock.advance(MINUTE);
    expect((await onOther(ADMIN_ONLY, bearer(token))).status).toBe(403);
    expect((await t.call("GET", ADMIN_ONLY, { token })).status).toBe(403);
    // Still a reader.
    expect((await onOther("/authentication/me", bearer(token))).status).toBe(200);
  });

  test("a store user deleted in the shop: 401 AUTHENTICATION_FAILED within 60 s", async () => {
    const user = await t.user();
    const token = await login(user.email);
    expect((await onOther("/book", bearer(token))).status).toBe(200);

    const { storeUser, storeUsermeta } = t.deps.db.tables;
    const id = await storeUserIdOf(user.email);
    await withTransaction(t.deps.db, async (tx) => {
      await tx.orm.delete(storeUsermeta).where(eq(storeUsermeta.userId, id));
      await tx.orm.delete(storeUser).where(eq(storeUser.id, id));
    });
    t.clock.advance(MINUTE);
    const response = await onOther("/book", bearer(token));
    await expectProblem(response, 401, "AUTHENTICATION_FAILED");
    // The session is gone for good, on every instance.
    expect((await t.call("GET", "/book", { token })).status).toBe(401);
  });

  test("a password changed in the shop ends the session within 60 s; a new login works", async () => {
    const user = await t.user();
    const token = await login(user.email);
    const { storeUser } = t.deps.db.tables;
    const userPass = await hashPassword("a brand new password", t.config.passwordHashCost);
    await queuedWrite(t.deps.db, (tx) =>
      tx.orm.update(storeUser).set({ userPass }).where(eq(storeUser.userEmail, user.email)),
    );
    t.clock.advance(MINUTE);
    const response = await onOther("/book", bearer(token));
    await expectProblem(response, 401, "AUTHENTICATION_FAILED");
    const again = await t.call("POST", "/authentication/login", {
      json: { email: user.email, password: "a brand new password" },
    });
    expect(again.status).toBe(200);
    const fresh = (await bodyAs(again, Session)).token;
    t.clock.advance(MINUTE);
    expect((await onOther("/book", bearer(fresh))).status).toBe(200);
  });

  test("the session row keeps a digest of the hash, never the hash", async () => {
    const user = await t.user();
    const { storeUser, userSession } = t.deps.db.tables;
    const [stored] = await t.deps.db.orm
      .select({ hash: storeUser.userPass })
      .from(storeUser)
      .where(eq(storeUser.userEmail, user.email));
    const rows = await t.deps.db.orm.select().from(userSession).where(eq(userSession.userUuid, user.uuid));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.passwordStamp).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(JSON.stringify(rows[0])).not.toContain(stored!.hash);
  });

  test("HTTP Basic: a revoked grant is refused within 60 s on each instance (the cache's bound)", async () => {
    const user = await t.user();
    await grantAdmin(t.deps, cliSource, user.email);
    const headers = { Authorization: basic(user.email, TEST_PASSWORD) };
    expect((await onOther(ADMIN_ONLY, headers)).status).toBe(200);
    await revokeAdmin(t.deps, cliSource, user.email);
    t.clock.advance(MINUTE);
    expect((await onOther(ADMIN_ONLY, headers)).status).toBe(403);
  });

  test("a store outage logs nobody out: the row serves for up to 60 s, then 503, then back", async () => {
    const user = await t.user();
    await grantAdmin(t.deps, cliSource, user.email);
    const token = await login(user.email);
    store.down = true;
    try {
      t.clock.advance(35_000); // due for a re-check, which fails: what the row knew still holds
      expect((await onOther(ADMIN_ONLY, bearer(token))).status).toBe(200);
      t.clock.advance(30_000); // 65 s since the last check: too old to act on
      const response = await onOther(ADMIN_ONLY, bearer(token));
      await expectProblem(response, 503, "SERVICE_UNAVAILABLE");
      expect(response.headers.get("retry-after")).toBeTruthy();
    } finally {
      store.down = false;
    }
    t.clock.advance(10_000); // past the instance's pause before asking the store again
    expect((await onOther(ADMIN_ONLY, bearer(token))).status).toBe(200);
  });
});

// Only the store and the grants make admins: nothing reachable over HTTP does.
describe("no admin by e-mail address", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  test("registering admin@example.com (or any address) gives a reader", async () => {
    const registered = await t.call("POST", "/authentication/register", {
      json: { email: "admin@example.com", password: TEST_PASSWORD },
    });
    expect(registered.status).toBe(201);
    const session = await bodyAs(registered, Session);
    expect(session.user.roles).toEqual(["user"]);
    expect((await t.call("GET", ADMIN_ONLY, { token: session.token })).status).toBe(403);
  });

  test("grantAdmin names an unknown user as such and changes nothing", async () => {
    await expect(grantAdmin(t.deps, cliSource, "nobody@example.com")).rejects.toThrow(
      'no user "nobody@example.com"',
    );
    const store: StoreDirectory = t.deps.store;
    expect(await store.findUser("nobody@example.com")).toBeNull();
  });
});
