// Session ids are stored only as their SHA-256 (issue 34, finding 7): a session row names no id a
// token could carry, and sessions opened before the upgrade (rows holding the raw id) are hashed
// by the migration step at start-up, so their tokens keep working: nobody is logged out.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { TokenSigner } from "../../src/auth/tokens";
import { openDatabase, sqlitePathFromUrl } from "../../src/db/client";
import { sessionIdHash } from "../../src/lib/session-id";
import { testDialect } from "../helpers/databases";
import { createTestApp, type TestApp } from "../helpers/test-app";

function sidOf(token: string): string {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")).sid;
}

describe(`session ids stored as hashes (${testDialect})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const sessionIds = async () =>
    (
      await t.deps.db.orm.select({ id: t.deps.db.tables.userSession.id }).from(t.deps.db.tables.userSession)
    ).map((row) => row.id);

  test("a login's row holds the digest of the token's session id, never the id", async () => {
    const user = await t.user();
    const sid = sidOf(user.token);
    const ids = await sessionIds();
    expect(ids).not.toContain(sid);
    expect(ids).toContain(sessionIdHash(sid));
    // The row's id presented as a token's sid opens nothing: a copy of the database is no key.
    const forged = new TokenSigner(t.deps.jwtSecret, t.config.jwtIssuer).sign({
      sub: user.uuid,
      sid: sessionIdHash(sid),
      roles: ["user"],
      email: user.email,
      iat: Math.floor(t.clock.now().getTime() / 1000),
      exp: Math.floor(t.clock.now().getTime() / 1000) + 3600,
    });
    expect((await t.call("GET", "/authentication/me", { token: forged })).status).toBe(401);
    expect((await t.call("GET", "/authentication/me", { token: user.token })).status).toBe(200);
  });

  test("a session opened before the upgrade (its raw id in the row) still authenticates after the migration", async () => {
    const user = await t.user();
    const { userSession } = t.deps.db.tables;
    const [current] = await t.deps.db.orm
      .select()
      .from(userSession)
      .where(eq(userSession.id, sessionIdHash(sidOf(user.token))));
    expect(current).toBeDefined();
    // The row as the previous version wrote it: the raw id, as its token carries it.
    const rawId = crypto.randomUUID();
    const oldRow = { ...current!, id: rawId };
    if (testDialect === "sqlite") {
      const connection = new SqliteConnection(sqlitePathFromUrl(t.database.url));
      try {
        connection.exec("PRAGMA busy_timeout = 5000");
        await drizzleSqlite({ client: connection }).insert(userSession).values(oldRow);
      } finally {
        connection.close();
      }
    } else {
      await t.deps.db.orm.insert(userSession).values(oldRow);
    }
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const oldToken = new TokenSigner(t.deps.jwtSecret, t.config.jwtIssuer).sign({
      sub: user.uuid,
      sid: rawId,
      roles: ["user"],
      email: user.email,
      iat: now,
      exp: now + 3600,
    });
    expect(await sessionIds()).toContain(rawId);

    // Start-up's migration (twice: a second instance, or the next start, finds nothing to do).
    for (let run = 0; run < 2; run++) {
      const handle = await openDatabase(t.database.url, { migrate: true });
      await handle.close();
    }

    const ids = await sessionIds();
    expect(ids).not.toContain(rawId);
    expect(ids).toContain(sessionIdHash(rawId));
    expect(ids.every((id) => /^[0-9a-f]{64}$/.test(id))).toBe(true);
    const me = await t.call("GET", "/authentication/me", { token: oldToken });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { email?: string }).email).toBe(user.email);
    expect((await t.call("GET", "/authentication/me", { token: user.token })).status).toBe(200);
  });
});
