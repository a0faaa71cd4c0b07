// Device tokens (app passwords, README "Reading apps"): made with the account's password again,
// shown once, good only on the operations of their scopes (HTTP Basic: the account's e-mail or
// login and the token), ended by a revocation at once, by their expiry, and — like sessions — by
// the account's deletion or a password change in the shop within a minute.
import { timingSafeEqual } from "node:crypto";
import type { Database } from "#db";
import {
  DEVICE_TOKEN_SCOPES,
  type DeviceTokenScope,
  deviceTokenHash,
  deviceTokenMd5Hash,
  hasValidChecksum,
  md5KeyHash,
  newDeviceToken,
  shownPrefixOf,
} from "../auth/device-token-format";
import { sessionStampOf } from "../auth/password-stamp";
import { assertOwner, isAdmin, type Principal, rolesOf } from "../auth/principal";
import { isBusy } from "../db/busy";
import { withTransaction } from "../db/transaction";
import type { Deps } from "../deps";
import { AppError } from "../lib/problems";
import {
  type DeviceTokenRow,
  findDeviceToken,
  findDeviceTokenByMd5Sha256,
  findDeviceTokenBySha256,
  insertDeviceTokenWithin,
  liveDeviceTokensOf,
  markDeviceTokenChecked,
  revokeDeviceTokenRow,
} from "../repositories/device-tokens";
import type { StoreDirectory } from "../store/directory";
import { type AccountCheck, storeUnavailable } from "./account-check";
import { type AuditSource, recordChange } from "./audit";
import { checkCredentials, normalizedName } from "./login-throttle";
import type { Runtime } from "./runtime";

/** Live tokens a user may hold at once: the 51st is refused (409). */
export const MAX_DEVICE_TOKENS_PER_USER = 50;
/**
 * How often a token in use re-reads its account from the store, and records its use
 * (`lastUsedAt`): one write a minute at most, and a deleted account or a changed password ends
 * the token within that minute.
 */
export const DEVICE_TOKEN_CHECK_INTERVAL_MS = 60_000;

export interface NewDeviceTokenInput {
  name: string;
  password: string;
  scopes?: DeviceTokenScope[] | undefined;
  expiresAt?: string | undefined;
}

const authenticationFailed = (detail = "The credentials are invalid, expired or ended.") =>
  new AppError("AUTHENTICATION_FAILED", detail);

/**
 * Makes a token for the caller of a session (Bearer): not for HTTP Basic, not for a device token,
 * so that a leaked app password cannot breed more. The account's password is checked again,
 * under the login throttle (services/login-throttle.ts). Answers the row and the token, which is
 * never shown again.
 */
export async function createDeviceToken(
  deps: Deps,
  runtime: Runtime,
  principal: Principal,
  input: NewDeviceTokenInput,
  clientAddress: string,
): Promise<{ row: DeviceTokenRow; token: string }> {
  if (principal.sessionId === null || principal.deviceTokenId !== undefined) {
    throw authenticationFailed("A device token is made with a session's Bearer token, not HTTP Basic.");
  }
  const now = deps.clock.now();
  const account = await deps.store.findByUuid(principal.userUuid);
  if (!account) throw authenticationFailed();
  const user = await checkCredentials(deps.store, runtime.throttle, {
    loginOrEmail: account.login,
    password: input.password,
    clientAddress,
    now,
  });
  if (!user || user.uuid !== principal.userUuid) throw authenticationFailed("The password is wrong.");
  const token = newDeviceToken();
  const row = await insertDeviceTokenWithin(
    deps.db,
    {
      userUuid: user.uuid,
      storeUserId: user.storeUserId,
      name: input.name,
      prefix: shownPrefixOf(token),
      sha256: deviceTokenHash(token),
      md5Sha256: deviceTokenMd5Hash(token),
      scopes: (input.scopes ?? DEVICE_TOKEN_SCOPES).join(","),
      passwordStamp: sessionStampOf(deps.jwtSecret, user.passwordStamp),
      createdAt: now,
      lastUsedAt: null,
      expiresAt: input.expiresAt === undefined ? null : new Date(input.expiresAt),
      revokedAt: null,
      checkedAt: now,
    },
    MAX_DEVICE_TOKENS_PER_USER,
    now,
  );
  if (!row) {
    throw new AppError(
      "CONFLICT",
      `You already hold ${MAX_DEVICE_TOKENS_PER_USER} device tokens; revoke one to make another.`,
    );
  }
  return { row, token };
}

/** The caller's live tokens (never a token itself: only its digests are kept). */
export function listDeviceTokens(deps: Deps, principal: Principal): Promise<DeviceTokenRow[]> {
  return liveDeviceTokensOf(deps.db, principal.userUuid, deps.clock.now());
}

/**
 * Revokes a token of the caller's (an admin: anyone's); it stops working at once, since every use
 * reads the row. 404 for no such token or one already revoked, 403 for another user's (as for the
 * other owner-level records, e.g. an activation).
 */
export async function revokeDeviceToken(
  deps: Deps,
  principal: Principal,
  by: AuditSource,
  id: number,
): Promise<DeviceTokenRow> {
  const found = await findDeviceToken(deps.db, id);
  if (!found) throw new AppError("NOT_FOUND", `No device token ${id}.`);
  assertOwner(principal, found.userUuid);
  const now = deps.clock.now();
  const revoked = await withTransaction(deps.db, async (tx) => {
    const row = await revokeDeviceTokenRow(tx, id, now);
    // An admin ending another user's token is a change staff made (README "Audit log"); a
    // reader revoking their own is not. `changes` names no token or digest (auditedFields).
    if (row && isAdmin(principal) && principal.userUuid !== found.userUuid) {
      await recordChange(tx, by, now, "devicetoken", "revoke", id, found, row);
    }
    return row;
  });
  if (!revoked) throw new AppError("NOT_FOUND", `Device token ${id} is already revoked.`);
  return revoked;
}

export function scopesOf(row: DeviceTokenRow): DeviceTokenScope[] {
  return row.scopes
    .split(",")
    .filter((scope): scope is DeviceTokenScope => (DEVICE_TOKEN_SCOPES as readonly string[]).includes(scope));
}

/** What checking a token needs: the database, the store, the session secret, the account check. */
export interface DeviceTokenContext {
  db: Database;
  store: StoreDirectory;
  jwtSecret: string;
  accountCheck: AccountCheck;
}

export interface DeviceTokenAttempt {
  /** The Basic user name (or KOReader's `x-auth-user`): the account's e-mail or login. */
  userName: string;
  scope: DeviceTokenScope;
  now: Date;
  /**
   * What this instance answered for exactly these credentials less than a minute ago (the HTTP
   * layer's cache): served again without asking the store while the row says the account was
   * checked within DEVICE_TOKEN_CHECK_INTERVAL_MS. The row is read every time all the same, so a
   * revocation or an expiry holds at once.
   */
  cached?: Principal | undefined;
}

/**
 * The principal of HTTP Basic credentials whose password is a device token, on an operation of
 * `scope`; null when the token is mistyped (no lookup then), unknown, revoked, expired, without
 * that scope, of another account than `userName`, or ended by the account (deleted, password
 * changed: the token is then revoked). 503 when the store cannot be asked and must be.
 */
export async function principalFromDeviceToken(
  ctx: DeviceTokenContext,
  token: string,
  attempt: DeviceTokenAttempt,
): Promise<Principal | null> {
  if (!hasValidChecksum(token)) return null;
  const sha256 = deviceTokenHash(token);
  const row = await findDeviceTokenBySha256(ctx.db, sha256);
  // The index found the row by this digest; compared again in constant time, for form's sake.
  if (!row || !sameDigest(row.sha256, sha256)) return null;
  return principalOfRow(ctx, row, attempt);
}

/**
 * The same for a client that sends the lower-case hex MD5 of its password (KOReader's progress
 * sync: `x-auth-user` and `x-auth-key`), found by the SHA-256 of that MD5.
 */
export async function principalFromDeviceTokenMd5(
  ctx: DeviceTokenContext,
  md5Hex: string,
  attempt: DeviceTokenAttempt,
): Promise<Principal | null> {
  if (!/^[0-9a-fA-F]{32}$/.test(md5Hex)) return null;
  const digest = md5KeyHash(md5Hex);
  const row = await findDeviceTokenByMd5Sha256(ctx.db, digest);
  if (!row || !sameDigest(row.md5Sha256, digest)) return null;
  return principalOfRow(ctx, row, attempt);
}

/** Whether the row still authenticates `attempt`: usable, of that scope, and of that account. */
async function principalOfRow(
  ctx: DeviceTokenContext,
  row: DeviceTokenRow,
  attempt: DeviceTokenAttempt,
): Promise<Principal | null> {
  const { now } = attempt;
  if (row.revokedAt !== null) return null;
  if (row.expiresAt !== null && row.expiresAt.getTime() <= now.getTime()) return null;
  if (!scopesOf(row).includes(attempt.scope)) return null;
  const checkDue =
    row.lastUsedAt === null || now.getTime() - row.checkedAt.getTime() >= DEVICE_TOKEN_CHECK_INTERVAL_MS;
  if (!checkDue && attempt.cached?.deviceTokenId === row.id) return attempt.cached;
  const user = await ctx.accountCheck.currentUser(row, now);
  // The store is out: the user name cannot be matched, so nothing is served from the row alone.
  if (user === undefined) throw storeUnavailable();
  const stamp = user && sessionStampOf(ctx.jwtSecret, user.passwordStamp);
  if (!user || user.storeUserId !== row.storeUserId || !stamp || !sameDigest(stamp, row.passwordStamp)) {
    // The account is gone or its password changed: the token ends, as a session does.
    await revokeDeviceTokenRow(ctx.db, row.id, now);
    return null;
  }
  const name = normalizedName(attempt.userName);
  if (name !== normalizedName(user.email) && name !== normalizedName(user.login)) return null;
  if (checkDue) {
    // Best effort, as a session's check: while another process holds SQLite's write lock the
    // request is served from what was just read, and a later one records the use.
    await markDeviceTokenChecked(ctx.db, row.id, now).catch((error: unknown) => {
      if (!isBusy(error)) throw error;
    });
  }
  return {
    userUuid: user.uuid,
    storeUserId: user.storeUserId,
    email: user.email,
    // An app password is a reader's credential: it never carries the account's admin role.
    roles: rolesOf(false),
    sessionId: null,
    deviceTokenId: row.id,
  };
}

function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
