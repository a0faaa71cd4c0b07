// Console sessions (README "Console"): a staff member's sign-in to /console, apart from the API's
// sessions. The browser holds 256 random bits in its cookie; the row holds their SHA-256. A
// session ends after CONSOLE_IDLE_TIMEOUT unused, CONSOLE_SESSION_TTL after its sign-in, at sign-out,
// and as soon as a re-check (at least every SESSION_TOUCH_INTERVAL_MS) finds the account gone, its
// password changed or its admin role lost.

import { sessionStampOf } from "../auth/password-stamp";
import type { Principal } from "../auth/principal";
import { rolesOf } from "../auth/principal";
import { SESSION_TOUCH_INTERVAL_MS } from "../config";
import { isBusy } from "../db/busy";
import type { Deps } from "../deps";
import { AppError } from "../lib/problems";
import {
  deleteConsoleSession,
  findConsoleSession,
  insertConsoleSession,
  markConsoleSessionChecked,
} from "../repositories/console-sessions";
import type { StoreUser } from "../store/directory";
import type { Runtime } from "./runtime";

/** What a plain user who signs in is told (README "Console"). */
export const NO_CONSOLE_ACCESS = "This account has no access to the console";

/** A cookie value that can name a session: 43 base64url characters (256 bits). */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function consoleSessionKey(cookieValue: string): string {
  return new Bun.CryptoHasher("sha256").update(cookieValue).digest("hex");
}

/**
 * A new session for `user`, who has just proven their password; 403 FORBIDDEN for an account that
 * is no admin. The returned value goes into the cookie and nowhere else.
 */
export async function openConsoleSession(
  deps: Deps,
  runtime: Runtime,
  user: StoreUser,
  now: Date,
): Promise<{ cookieValue: string; expiresAt: Date }> {
  const { isAdmin, passwordStamp } = await runtime.accountCheck.stateAtLogin(user);
  if (!isAdmin) throw new AppError("FORBIDDEN", NO_CONSOLE_ACCESS);
  const cookieValue = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const expiresAt = new Date(now.getTime() + deps.config.consoleSessionTtlMs);
  await insertConsoleSession(deps.db, {
    id: consoleSessionKey(cookieValue),
    userUuid: user.uuid,
    storeUserId: user.storeUserId,
    email: user.email,
    createdAt: now,
    lastSeenAt: now,
    expiresAt,
    isAdmin,
    passwordStamp,
    checkedAt: now,
  });
  return { cookieValue, expiresAt };
}

/**
 * The admin behind a console cookie, or null (no such session, ended, idled out, or its account
 * is no admin any more: then the row is deleted). Throws 503 when the store cannot be asked and
 * what the row knows is older than a minute (services/account-check.ts).
 */
export async function consolePrincipal(
  deps: Deps,
  runtime: Runtime,
  cookieValue: string,
  now: Date,
): Promise<Principal | null> {
  if (!SESSION_ID.test(cookieValue)) return null;
  const key = consoleSessionKey(cookieValue);
  const row = await findConsoleSession(deps.db, key);
  if (!row) return null;
  const at = now.getTime();
  if (row.expiresAt.getTime() <= at || row.lastSeenAt.getTime() + deps.config.consoleIdleTimeoutMs <= at) {
    await deleteConsoleSession(deps.db, key);
    return null;
  }
  let isAdmin = row.isAdmin;
  if (at - row.checkedAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) {
    const user = await runtime.accountCheck.currentUser(row, now);
    if (user !== undefined) {
      const same =
        user !== null &&
        user.storeUserId === row.storeUserId &&
        sessionStampOf(deps.jwtSecret, user.passwordStamp) === row.passwordStamp;
      isAdmin = same && (await runtime.accountCheck.rolesOf(user)).includes("admin");
      if (!isAdmin) {
        await deleteConsoleSession(deps.db, key);
        return null;
      }
      // Best effort under another process's SQLite lock: the next page records it.
      await markConsoleSessionChecked(deps.db, key, now, true).catch((error: unknown) => {
        if (!isBusy(error)) throw error;
      });
    }
  }
  if (!isAdmin) return null;
  return {
    userUuid: row.userUuid,
    storeUserId: row.storeUserId,
    email: row.email,
    roles: rolesOf(true),
    sessionId: null,
  };
}

/** Sign-out: the session named by the cookie ends at once. */
export async function endConsoleSession(deps: Deps, cookieValue: string): Promise<void> {
  if (SESSION_ID.test(cookieValue)) await deleteConsoleSession(deps.db, consoleSessionKey(cookieValue));
}
