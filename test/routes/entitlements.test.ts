// Offline entitlements (README "Offline entitlements"): the token is checked by an independent
// implementation (jose's jwtVerify against the JWKS fetched over HTTP), the signing code by RFC
// 8037's test vector, revocations by the next token and the feed, the rotation along an injected
// clock, and two instances on one database sign with one key. Runs on SQLite, and on Postgres
// with TEST_DATABASE_URL.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from "jose";
import { createApp } from "../../src/app";
import {
  importPrivateJwk,
  jwkThumbprint,
  SealedKeyError,
  signCompactJws,
  unsealSigningKey,
} from "../../src/auth/entitlement-signing";
import { openDatabase } from "../../src/db/client";
import { withTransaction } from "../../src/db/transaction";
import { cleanupSessions } from "../../src/jobs/session-cleanup";
import { deleteShopActivation, insertShopActivation } from "../../src/repositories/activations";
import { listEntitlementKeys } from "../../src/repositories/entitlement-keys";
import { Activation } from "../../src/routes/activations/activations.schemas";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { CreatedDeviceToken } from "../../src/routes/device-tokens/device-tokens.schemas";
import { Entitlements } from "../../src/routes/entitlements/entitlements.schemas";
import { cliSource } from "../../src/services/audit";
import {
  ENTITLEMENTS_JWS_TYPE,
  issueEntitlements,
  rotateEntitlementKey,
} from "../../src/services/entitlements";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

const DAY = 86_400_000;
const MINUTE = 60_000;
const ENTITLEMENTS = "/authentication/entitlements";
const REVOCATIONS = "/authentication/entitlements/revocations";
const JWKS = "/.well-known/jwks.json";

/** What no answer may hold: a private JWK member or an Ed25519 PKCS #8 key. */
function expectNoPrivateKey(text: string) {
  expect(text).not.toMatch(/"d"\s*:/);
  expect(text).not.toMatch(/MC4CAQAwBQYDK2VwBCIEI/);
  expect(text).not.toMatch(/302e020100300506032b657004220420/i);
}

type Caller = { token: string; uuid: string; email: string };

describe("offline entitlements", () => {
  let t: TestApp;
  let admin: Caller;
  /** The app served over HTTP on 127.0.0.1, for jose's createRemoteJWKSet. */
  let server: ReturnType<typeof Bun.serve>;
  const seen: string[] = [];

  /** Every answer's body is kept, to be searched for private keys at the end. */
  async function call(...args: Parameters<TestApp["call"]>): Promise<Response> {
    const response = await t.call(...args);
    const text = await response.clone().text();
    seen.push(text);
    return response;
  }

  async function book(title: string, versions: Array<{ code: number; archived: boolean }> = []) {
    const id = (await bodyAs(await call("POST", "/book", { token: admin.token, json: { title } }), Book)).id;
    for (const { code, archived } of versions) {
      const response = await call("POST", "/bookversion", {
        token: admin.token,
        json: { bookId: id, versionCode: code, versionName: `v${code}` },
      });
      const version = await bodyAs(response, BookVersion);
      if (!archived) continue;
      const { db } = t.deps;
      const sha256 = createHash("sha256").update(`${id}/${code}`).digest("hex");
      const now = t.clock.now();
      await withTransaction(db, async (tx) => {
        await tx.orm.insert(db.tables.blob).values({ sha256, size: 100, createdAt: now });
        await tx.orm
          .update(db.tables.bookVersion)
          .set({ archiveSha256: sha256, archiveSize: 100, archiveFilename: "a.zip", archiveUploadedAt: now })
          .where(eq(db.tables.bookVersion.id, version.id));
      });
    }
    return id;
  }

  async function activate(bookId: number, user: Caller) {
    const response = await call("POST", "/activation", {
      token: admin.token,
      json: { bookId, userUuid: user.uuid },
    });
    expect(response.status).toBe(201);
    return bodyAs(response, Activation);
  }

  async function entitlements(authorization: string) {
    const response = await call("GET", ENTITLEMENTS, { headers: { Authorization: authorization } });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    return bodyAs(response, Entitlements);
  }

  const bearer = (caller: { token: string }) => `Bearer ${caller.token}`;

  /** The JWKS as an app fetches it now, for jose. */
  async function localJwks() {
    const response = await call("GET", JWKS);
    expect(response.status).toBe(200);
    return createLocalJWKSet((await response.json()) as { keys: JWK[] });
  }

  async function verifyAt(token: string, at: Date) {
    return jwtVerify(token, await localJwks(), {
      issuer: "bookdist",
      algorithms: ["EdDSA"],
      typ: ENTITLEMENTS_JWS_TYPE,
      currentDate: at,
    });
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { ENTITLEMENT_TTL: "30d", ENTITLEMENT_KEY_OVERLAP: "1d" } });
    admin = await t.admin();
    server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => t.app.fetch(request) });
  });
  afterAll(async () => {
    server.stop(true);
    await t.close();
  });
  beforeEach(async () => {
    t.clock.advance(61 * MINUTE);
    // A test may move the clock past SESSION_TTL: each starts with a fresh admin session.
    const response = await t.call("POST", "/authentication/login", {
      json: { email: admin.email, password: TEST_PASSWORD },
    });
    expect(response.status).toBe(200);
    admin = { ...admin, token: ((await response.json()) as { token: string }).token };
  });

  test("RFC 8037 A.3 and A.4: the thumbprint and the Ed25519 signature of the RFC's example, through the project's own code", async () => {
    const jwk = {
      kty: "OKP" as const,
      crv: "Ed25519" as const,
      d: "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A",
      x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
    };
    expect(jwkThumbprint(jwk)).toBe("kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k");
    const jws = await signCompactJws(
      { alg: "EdDSA" },
      "Example of Ed25519 signing",
      await importPrivateJwk(jwk),
    );
    expect(jws).toBe(
      "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg",
    );
  });

  test("a token lists every held book with its newest version; jose verifies it against the JWKS fetched over HTTP", async () => {
    const reader = await t.user();
    const withVersions = await book("Dune", [
      { code: 1, archived: true },
      { code: 2, archived: true },
      { code: 3, archived: false },
    ]);
    const bare = await book("Emma");
    await book("Not held", [{ code: 1, archived: true }]);
    const first = await activate(withVersions, reader);
    const second = await activate(bare, reader);

    const answer = await entitlements(bearer(reader));
    const header = decodeProtectedHeader(answer.token);
    const jwks = createRemoteJWKSet(new URL(`http://127.0.0.1:${server.port}${JWKS}`));
    const { payload, protectedHeader } = await jwtVerify(answer.token, jwks, {
      issuer: "bookdist",
      subject: reader.uuid,
      algorithms: ["EdDSA"],
      typ: ENTITLEMENTS_JWS_TYPE,
      currentDate: t.clock.now(),
    });
    expect(protectedHeader).toEqual({ alg: "EdDSA", typ: ENTITLEMENTS_JWS_TYPE, kid: header.kid! });
    const iat = Math.floor(t.clock.now().getTime() / 1000);
    expect(payload).toMatchObject({
      iss: "bookdist",
      sub: reader.uuid,
      iat,
      nbf: iat,
      exp: iat + 30 * 86_400,
    });
    expect(answer.expiresAt).toBe(new Date((iat + 30 * 86_400) * 1000).toISOString());
    const [newest] = await t.deps.db.orm
      .select()
      .from(t.deps.db.tables.bookVersion)
      .where(eq(t.deps.db.tables.bookVersion.versionCode, 2));
    expect(payload.books).toEqual([
      {
        id: withVersions,
        activationId: first.id,
        since: first.createdAt,
        newestVersion: { id: newest!.id, versionCode: 2, sha256: newest!.archiveSha256 },
      },
      { id: bare, activationId: second.id, since: second.createdAt, newestVersion: null },
    ]);

    // The JWKS: each key public only, cacheable, with an ETag that a revalidation meets.
    const response = await call("GET", JWKS);
    expect(response.headers.get("cache-control")).toBe("public, max-age=300");
    const etag = response.headers.get("etag")!;
    const { keys } = (await response.json()) as { keys: Record<string, string>[] };
    expect(keys).toEqual([
      { kty: "OKP", crv: "Ed25519", x: expect.any(String), alg: "EdDSA", use: "sig", kid: header.kid! },
    ]);
    expect(jwkThumbprint({ kty: "OKP", crv: "Ed25519", x: keys[0]!.x! })).toBe(header.kid!);
    const again = await call("GET", JWKS, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
  });

  test("a device token with the entitlements scope gets one; one without that scope, and no credentials, do not", async () => {
    const reader = await t.user();
    const held = await book("Scoped");
    await activate(held, reader);
    const make = async (scopes: string[]) => {
      const response = await call("POST", "/authentication/device-token", {
        token: reader.token,
        json: { name: "app", password: TEST_PASSWORD, scopes },
      });
      expect(response.status).toBe(201);
      return (await bodyAs(response, CreatedDeviceToken)).token;
    };
    const basic = (token: string) => `Basic ${Buffer.from(`${reader.email}:${token}`).toString("base64")}`;
    const scoped = await make(["entitlements"]);
    const answer = await entitlements(basic(scoped));
    const { payload } = await verifyAt(answer.token, t.clock.now());
    expect((payload.books as Array<{ id: number }>).map((b) => b.id)).toEqual([held]);
    const feed = await call("GET", `${REVOCATIONS}?since=2026-01-01T00:00:00Z`, {
      headers: { Authorization: basic(scoped) },
    });
    expect(feed.status).toBe(200);

    const other = await make(["opds"]);
    for (const path of [ENTITLEMENTS, `${REVOCATIONS}?since=2026-01-01T00:00:00Z`]) {
      await expectProblem(
        await call("GET", path, { headers: { Authorization: basic(other) } }),
        401,
        "AUTHENTICATION_FAILED",
      );
      await expectProblem(await call("GET", path), 401, "UNAUTHORIZED");
    }
  });

  test("a revoked activation is absent from the next token and present in the revocations feed (admin delete and shop revocation)", async () => {
    const reader = await t.user();
    const kept = await book("Kept");
    const deleted = await book("Deleted");
    const shopBook = await book("Shop");
    await activate(kept, reader);
    const gone = await activate(deleted, reader);
    const bought = await withTransaction(t.deps.db, (tx) =>
      insertShopActivation(tx, { bookId: shopBook, userUuid: reader.uuid, shopOrderId: 9001 }, t.clock.now()),
    );
    const before = t.clock.now();
    const ids = async () => {
      const { payload } = await verifyAt((await entitlements(bearer(reader))).token, t.clock.now());
      return (payload.books as Array<{ id: number }>).map((b) => b.id);
    };
    expect(await ids()).toEqual([kept, deleted, shopBook]);

    t.clock.advance(MINUTE);
    const deletedAt = t.clock.now();
    expect((await call("DELETE", `/activation/${gone.id}`, { token: admin.token })).status).toBe(200);
    t.clock.advance(MINUTE);
    const revokedAt = t.clock.now();
    const outcome = await withTransaction(t.deps.db, (tx) =>
      deleteShopActivation(tx, bought!.id, 9001, revokedAt),
    );
    expect(outcome).toBe("deleted");
    expect(await ids()).toEqual([kept]);

    const feed = async (since: string, who: Caller = reader) => {
      const response = await call("GET", `${REVOCATIONS}?since=${encodeURIComponent(since)}`, {
        token: who.token,
      });
      expect(response.status).toBe(200);
      return response.json();
    };
    expect(await feed(before.toISOString())).toEqual([
      { bookId: deleted, activationId: gone.id, endedAt: deletedAt.toISOString() },
      { bookId: shopBook, activationId: bought!.id, endedAt: revokedAt.toISOString() },
    ]);
    // Since is inclusive, with any offset; later than both: nothing. Another reader: nothing.
    const plusOne = new Date(revokedAt.getTime() + 3_600_000).toISOString().replace("Z", "+01:00");
    expect(await feed(plusOne.replace(/\.\d{3}/, ".000"))).toHaveLength(1);
    expect(await feed(new Date(revokedAt.getTime() + 1).toISOString())).toEqual([]);
    expect(await feed(before.toISOString(), await t.user())).toEqual([]);
    // An activation given to another reader (PUT) ended for its previous holder.
    const moved = await activate(await book("Moved"), reader);
    const heir = await t.user();
    t.clock.advance(MINUTE);
    const movedAt = t.clock.now();
    const put = await call("PUT", `/activation/${moved.id}`, {
      token: admin.token,
      json: { bookId: moved.bookId, userUuid: heir.uuid },
    });
    expect(put.status).toBe(200);
    expect(await feed(movedAt.toISOString())).toEqual([
      { bookId: moved.bookId, activationId: moved.id, endedAt: movedAt.toISOString() },
    ]);
    expect(await feed(movedAt.toISOString(), heir)).toEqual([]);
    expect(await ids()).toEqual([kept]);
    // `since` is required and must be RFC 3339.
    for (const query of ["", "?since=yesterday", "?since=2026-13-01T00:00:00Z"]) {
      await expectProblem(
        await call("GET", `${REVOCATIONS}${query}`, { token: reader.token }),
        400,
        "VALIDATION_FAILED",
      );
    }

    // The records go once no token can still list the book: after ENTITLEMENT_TTL.
    const { activationEnd } = t.deps.db.tables;
    const mine = () =>
      t.deps.db.orm.select().from(activationEnd).where(eq(activationEnd.userUuid, reader.uuid));
    expect(await mine()).toHaveLength(3);
    // From the admin delete: 30 days and a millisecond later the first record goes, not the next.
    t.clock.set(new Date(deletedAt.getTime() + 30 * DAY + 1));
    await cleanupSessions(t.deps);
    expect((await mine()).map((row) => row.activationId)).toEqual([bought!.id, moved.id]);
    t.clock.set(new Date(movedAt.getTime() + 30 * DAY + 1));
    await cleanupSessions(t.deps);
    expect(await mine()).toEqual([]);
  });

  test("rotation: the new key is published at once, signs after the overlap; old tokens verify until they expire", async () => {
    const reader = await t.user();
    await activate(await book("Rotated"), reader);
    const { token: oldToken, expiresAt: oldTokenExpiresAt } = await entitlements(bearer(reader));
    const oldKid = decodeProtectedHeader(oldToken).kid!;
    const kids = async () => {
      const response = await call("GET", JWKS);
      return ((await response.json()) as { keys: Array<{ kid: string }> }).keys.map((key) => key.kid);
    };

    t.clock.advance(DAY);
    const rotatedAt = t.clock.now();
    const rotated = await rotateEntitlementKey(t.deps, cliSource);
    expect(rotated.state).toBe("pending");
    expect(rotated.row.signsFrom).toEqual(new Date(rotatedAt.getTime() + DAY));
    const newKid = rotated.row.kid;
    // The operator's rotation is an audit event (actor cli) naming the kid, never a key's half.
    const [event] = (await (
      await call("GET", "/audit-event?action=entitlementkey.rotate", { token: admin.token })
    ).json()) as Array<{
      actor: { via: string };
      target: { type: string; id: number };
      changes: Record<string, unknown>;
    }>;
    expect(event).toMatchObject({
      actor: { via: "cli" },
      target: { type: "entitlementkey", id: rotated.row.id },
      changes: { kid: [null, newKid] },
    });
    expect(JSON.stringify(event)).not.toContain(rotated.row.privateKeyEncrypted);
    // Published at once, newest first; the old key still signs during the overlap.
    expect(await kids()).toEqual([newKid, oldKid]);
    t.clock.advance(DAY - 1);
    const lastOldToken = (await entitlements(bearer(reader))).token;
    expect(decodeProtectedHeader(lastOldToken).kid).toBe(oldKid);
    t.clock.advance(1);
    const switchedAt = t.clock.now().getTime();
    const newToken = (await entitlements(bearer(reader))).token;
    expect(decodeProtectedHeader(newToken).kid).toBe(newKid);
    await verifyAt(newToken, t.clock.now());
    await verifyAt(oldToken, t.clock.now());
    // The first token expires on its own time, whatever keys are published.
    t.clock.set(new Date(Date.parse(oldTokenExpiresAt) - 1000));
    await verifyAt(oldToken, t.clock.now());
    t.clock.set(new Date(oldTokenExpiresAt));
    await expect(verifyAt(oldToken, t.clock.now())).rejects.toThrow(/exp/);
    // The old key's last token was signed just before the switch: the old key stays published
    // until it has expired (the switch + ENTITLEMENT_TTL), then leaves the JWKS.
    t.clock.set(new Date(switchedAt + 30 * DAY - 2000));
    expect(await kids()).toEqual([newKid, oldKid]);
    await verifyAt(lastOldToken, t.clock.now());
    await verifyAt(newToken, t.clock.now());
    t.clock.set(new Date(switchedAt + 30 * DAY));
    expect(await kids()).toEqual([newKid]);
    await expect(verifyAt(lastOldToken, t.clock.now())).rejects.toThrow();
    expect((await listEntitlementKeys(t.deps.db)).map((row) => row.kid)).toEqual([oldKid, newKid]);
  });

  test("two instances on one database make the first key together and sign with it; a wrong JWT_SECRET cannot unseal it", async () => {
    const fresh = await createTestApp();
    const second = await openDatabase(fresh.database.url, { migrate: false });
    try {
      const one = fresh.app;
      const two = createApp({ ...fresh.deps, db: second.db });
      const reader = await fresh.user();
      const [a, b] = await Promise.all(
        [one, two].map(async (app) =>
          bodyAs(
            await app.request(ENTITLEMENTS, { headers: { Authorization: `Bearer ${reader.token}` } }),
            Entitlements,
          ),
        ),
      );
      const rows = await listEntitlementKeys(fresh.deps.db);
      expect(rows).toHaveLength(1);
      expect(decodeProtectedHeader(a!.token).kid).toBe(rows[0]!.kid);
      expect(decodeProtectedHeader(b!.token).kid).toBe(rows[0]!.kid);
      const jwks = (await (await two.request(JWKS)).json()) as { keys: JWK[] };
      for (const token of [a!.token, b!.token]) {
        await jwtVerify(token, createLocalJWKSet(jwks), { currentDate: fresh.clock.now() });
      }
      expectNoPrivateKey(JSON.stringify([a, b, jwks]));
      // A server with another JWT_SECRET (its sessions fail too) cannot sign with the stored key.
      await expect(
        issueEntitlements(
          { ...fresh.deps, db: second.db, jwtSecret: "another-secret-that-is-long-enough-0123456789" },
          { userUuid: reader.uuid },
        ),
      ).rejects.toBeInstanceOf(SealedKeyError);
      // The sealed half opens only under the secret it was sealed with.
      await unsealSigningKey(fresh.deps.jwtSecret, rows[0]!.kid, rows[0]!.privateKeyEncrypted);
      await expect(
        unsealSigningKey(
          "another-secret-that-is-long-enough-0123456789",
          rows[0]!.kid,
          rows[0]!.privateKeyEncrypted,
        ),
      ).rejects.toBeInstanceOf(SealedKeyError);
      // The stored row holds no plain private key either.
      expectNoPrivateKey(JSON.stringify(rows));
    } finally {
      await second.close();
      await fresh.close();
    }
  });

  test("no answer of this file held a private key", () => {
    expect(seen.length).toBeGreaterThan(10);
    for (const text of seen) expectNoPrivateKey(text);
  });
});
