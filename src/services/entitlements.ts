// Offline entitlements (README "Offline entitlements"): a JWS an app verifies without the server,
// listing every book the user holds; the JWKS that verifies it; the feed of activations ended
// since a time; the keys' rotation. Keys live in the database (every instance signs with the same
// one) with their private halves sealed under JWT_SECRET (auth/entitlement-signing.ts).
import { createHash } from "node:crypto";
import type { Database } from "#db";
import {
  generateSigningKey,
  type PublicOkpJwk,
  signCompactJws,
  unsealSigningKey,
} from "../auth/entitlement-signing";
import type { Principal } from "../auth/principal";
import type { Config } from "../config";
import { withTransaction } from "../db/transaction";
import type { Clock } from "../lib/clock";
import { AppError } from "../lib/problems";
import { activationEndsSince } from "../repositories/activation-ends";
import { listEntitledBooks } from "../repositories/activations";
import {
  type EntitlementKeyRow,
  insertEntitlementKeyIfAbsent,
  listEntitlementKeys,
  newestEntitlementKey,
} from "../repositories/entitlement-keys";
import { type AuditSource, recordChange } from "./audit";

export const ENTITLEMENTS_JWS_TYPE = "bookdist-entitlements+jwt";
/**
 * The most books one token lists: far above any reader's shelf (5,000 books is about 0.6 MB of
 * token), it keeps one request's memory bounded whatever the data holds.
 */
export const MAX_ENTITLED_BOOKS = 20_000;
/** The most ended activations one revocations answer lists; the app asks again from the last. */
export const MAX_REVOCATIONS = 1000;

export interface EntitlementDeps {
  db: Database;
  config: Pick<Config, "publicUrl" | "jwtIssuer" | "entitlementTtlMs" | "entitlementKeyOverlapMs">;
  clock: Clock;
  jwtSecret: string;
}

/** One key's place in time: when it signs, until when it signs, until when it is published. */
export interface KeyState {
  row: EntitlementKeyRow;
  /** When the next generation takes over signing (null: this one signs on, or will). */
  retiredAt: Date | null;
  /** Until when the JWKS lists it: retiredAt + ENTITLEMENT_TTL, when every token it signed expired. */
  publishedUntil: Date | null;
  state: "pending" | "signing" | "retired" | "expired";
}

/**
 * The keys at `now`: generations in order, each signing from its `signsFrom` until the next one
 * does. The signing key is the newest whose time has come; newer ones are pending (published, not
 * yet signing, so apps fetch them first); older ones are retired and published until every token
 * they can have signed has expired.
 */
export function keyStates(rows: EntitlementKeyRow[], now: Date, ttlMs: number): KeyState[] {
  const t = now.getTime();
  let signing: EntitlementKeyRow | undefined;
  for (const row of rows) if (row.signsFrom.getTime() <= t) signing = row;
  return rows.map((row, i) => {
    const next = rows.slice(i + 1).find((later) => later.signsFrom.getTime() <= t);
    const retiredAt = next ? next.signsFrom : null;
    const publishedUntil = retiredAt ? new Date(retiredAt.getTime() + ttlMs) : null;
    const state =
      row === signing
        ? "signing"
        : row.signsFrom.getTime() > t
          ? "pending"
          : publishedUntil && publishedUntil.getTime() <= t
            ? "expired"
            : "retired";
    return { row, retiredAt, publishedUntil, state };
  });
}

/**
 * The key that signs now, making the first one when there is none: generation 1 signs at once.
 * Two instances doing so together both insert generation 1; one row is kept, and both read it.
 */
export async function signingKey(deps: EntitlementDeps): Promise<EntitlementKeyRow> {
  const now = deps.clock.now();
  let rows = await listEntitlementKeys(deps.db);
  if (rows.length === 0) {
    await insertKey(deps, 1, now, now);
    rows = await listEntitlementKeys(deps.db);
  }
  const signing = keyStates(rows, now, deps.config.entitlementTtlMs).find((key) => key.state === "signing");
  if (!signing) throw new Error("no entitlement key signs now");
  return signing.row;
}

async function insertKey(
  deps: EntitlementDeps,
  id: number,
  now: Date,
  signsFrom: Date,
  by?: AuditSource,
): Promise<boolean> {
  const key = await generateSigningKey(deps.jwtSecret);
  const row = {
    id,
    kid: key.kid,
    publicJwk: JSON.stringify(key.publicJwk),
    privateKeyEncrypted: key.sealed,
    createdAt: now,
    signsFrom,
  };
  return withTransaction(deps.db, async (tx) => {
    const inserted = await insertEntitlementKeyIfAbsent(tx, row);
    // An operator's rotation is a change of theirs (README "Audit log"); the first key, made on
    // demand by the server, is not. Only the kid and its start are named, never a key.
    if (inserted && by) await recordChange(tx, by, now, "entitlementkey", "rotate", id, null, row);
    return inserted;
  });
}

/**
 * `bun run admin keys rotate`: publishes a new key now, signing after ENTITLEMENT_KEY_OVERLAP
 * (the first key ever signs at once). A rotation that met another one at the same moment fails
 * rather than making two.
 */
export async function rotateEntitlementKey(deps: EntitlementDeps, by: AuditSource): Promise<KeyState> {
  const now = deps.clock.now();
  const newest = await newestEntitlementKey(deps.db);
  const id = (newest?.id ?? 0) + 1;
  const signsFrom = newest ? new Date(now.getTime() + deps.config.entitlementKeyOverlapMs) : now;
  if (!(await insertKey(deps, id, now, signsFrom, by))) {
    throw new AppError("CONFLICT", "Another rotation made this key generation just now; list the keys.");
  }
  const states = await listEntitlementKeyStates(deps);
  return states.find((key) => key.row.id === id)!;
}

/** `bun run admin keys list`: every key with its state, oldest first. */
export async function listEntitlementKeyStates(deps: EntitlementDeps): Promise<KeyState[]> {
  return keyStates(await listEntitlementKeys(deps.db), deps.clock.now(), deps.config.entitlementTtlMs);
}

/** A JWKS entry (RFC 7517 §4, RFC 8037 §2). */
export interface PublishedJwk extends PublicOkpJwk {
  alg: "EdDSA";
  use: "sig";
  kid: string;
}

/**
 * `GET /.well-known/jwks.json`: the signing key, pending ones and retired ones whose tokens may
 * still be live, newest first; the first key is made if there is none, so an app that fetches
 * the keys before anyone asked for a token still finds the one that will sign it.
 */
export async function publishedKeys(deps: EntitlementDeps): Promise<{ keys: PublishedJwk[]; etag: string }> {
  await signingKey(deps);
  const states = await listEntitlementKeyStates(deps);
  const keys = states
    .filter((key) => key.state !== "expired")
    .reverse()
    .map(({ row }): PublishedJwk => {
      const jwk = JSON.parse(row.publicJwk) as PublicOkpJwk;
      return { kty: "OKP", crv: "Ed25519", x: jwk.x, alg: "EdDSA", use: "sig", kid: row.kid };
    });
  const etag = `"${createHash("sha256").update(JSON.stringify(keys)).digest("base64url").slice(0, 27)}"`;
  return { keys, etag };
}

/** Unsealed keys, by secret and kid: unsealing costs an AES decryption and a key import. */
const unsealed = new Map<string, Promise<CryptoKey>>();

function cryptoKeyOf(deps: EntitlementDeps, row: EntitlementKeyRow): Promise<CryptoKey> {
  const cacheKey = `${createHash("sha256").update(deps.jwtSecret).digest("base64url")}:${row.kid}`;
  let key = unsealed.get(cacheKey);
  if (!key) {
    key = unsealSigningKey(deps.jwtSecret, row.kid, row.privateKeyEncrypted);
    // A failure is not kept: the operator may fix JWT_SECRET and restart, or the row may change.
    key.catch(() => unsealed.delete(cacheKey));
    unsealed.set(cacheKey, key);
  }
  return key;
}

export interface EntitledBook {
  id: number;
  activationId: number;
  since: string;
  newestVersion: { id: number; versionCode: number; sha256: string } | null;
}

export interface EntitlementClaims {
  iss: string;
  sub: string;
  iat: number;
  nbf: number;
  exp: number;
  books: EntitledBook[];
}

/**
 * `GET /authentication/entitlements`: a token listing every book the caller holds now, signed by
 * the current key. One read of the shelf (listEntitledBooks), one of the few keys.
 */
export async function issueEntitlements(
  deps: EntitlementDeps,
  principal: Pick<Principal, "userUuid">,
): Promise<{ token: string; expiresAt: string }> {
  const key = await signingKey(deps);
  const cryptoKey = await cryptoKeyOf(deps, key);
  const rows = await listEntitledBooks(deps.db, principal.userUuid, MAX_ENTITLED_BOOKS);
  const iat = Math.floor(deps.clock.now().getTime() / 1000);
  const exp = iat + Math.floor(deps.config.entitlementTtlMs / 1000);
  const claims: EntitlementClaims = {
    iss: deps.config.publicUrl ?? deps.config.jwtIssuer,
    sub: principal.userUuid,
    iat,
    nbf: iat,
    exp,
    books: rows.map((row) => ({
      id: row.bookId,
      activationId: row.activationId,
      since: row.since.toISOString(),
      newestVersion:
        row.versionId === null || row.versionCode === null || row.sha256 === null
          ? null
          : { id: row.versionId, versionCode: row.versionCode, sha256: row.sha256 },
    })),
  };
  const token = await signCompactJws(
    { alg: "EdDSA", typ: ENTITLEMENTS_JWS_TYPE, kid: key.kid },
    JSON.stringify(claims),
    cryptoKey,
  );
  return { token, expiresAt: new Date(exp * 1000).toISOString() };
}

export interface Revocation {
  bookId: number;
  activationId: number;
  endedAt: string;
}

/**
 * `GET /authentication/entitlements/revocations`: the caller's activations ended at or after
 * `since`, oldest first, at most MAX_REVOCATIONS (ask again from the last `endedAt`).
 */
export async function revocationsSince(
  deps: Pick<EntitlementDeps, "db">,
  principal: Pick<Principal, "userUuid">,
  since: Date,
): Promise<Revocation[]> {
  const rows = await activationEndsSince(deps.db, principal.userUuid, since, MAX_REVOCATIONS);
  return rows.map((row) => ({
    bookId: row.bookId,
    activationId: row.activationId,
    endedAt: row.endedAt.toISOString(),
  }));
}
