// A token proves a session, not a role: every session re-reads its account from the store and the
// admin grants at least every SESSION_TOUCH_INTERVAL_MS (config.ts), so a demotion, a revoked
// grant, a deleted account or a password changed in the shop reaches live tokens within a minute
// on every instance.
import type { Database } from "#db";
import { sessionStampOf } from "../auth/password-stamp";
import { type Role, rolesFor } from "../auth/principal";
import { isBusy } from "../db/busy";
import type { Logger } from "../lib/logger";
import { AppError } from "../lib/problems";
import { hasAdminGrant } from "../repositories/admin-grants";
import { deleteSessionRow, markSessionChecked, type SessionRow } from "../repositories/sessions";
import type { StoreDirectory, StoreUser } from "../store/directory";

/**
 * While the store cannot be reached, a session checked less than this long ago keeps what it
 * knew; an older one is answered 503 (not 401: nobody is logged out by a shop outage), so no
 * token ever acts on an account state older than this.
 */
const STALE_LIMIT_MS = 60_000;
/** After the store failed, this instance leaves it alone for a moment rather than queue on it. */
const STORE_RETRY_MS = 5_000;

export type AccountState = { isAdmin: boolean } | "ended";

export interface AccountCheckDeps {
  db: Database;
  store: StoreDirectory;
  jwtSecret: string;
  logger: Logger;
}

export class AccountCheck {
  private storeRetryAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: AccountCheckDeps) {}

  /** The admin flag a new session starts with, and its password stamp. */
  async stateAtLogin(user: StoreUser): Promise<{ isAdmin: boolean; passwordStamp: string }> {
    return {
      isAdmin: (await this.rolesOf(user)).includes("admin"),
      passwordStamp: sessionStampOf(this.deps.jwtSecret, user.passwordStamp),
    };
  }

  /** Admin by store role or by an operator's grant: the one computation behind every principal. */
  async rolesOf(user: StoreUser): Promise<Role[]> {
    return rolesFor(user.storeRoles, await hasAdminGrant(this.deps.db, user.uuid));
  }

  /**
   * The session's account as it is now, or "ended" (the session row is deleted) when the account
   * is gone or its password hash changed. Throws 503 when the store cannot say and what the row
   * knows is older than STALE_LIMIT_MS.
   */
  async recheck(session: SessionRow, now: Date): Promise<AccountState> {
    const user = await this.currentUser(session, now);
    if (user === undefined) return { isAdmin: session.isAdmin };
    const stamp = user && sessionStampOf(this.deps.jwtSecret, user.passwordStamp);
    if (!user || user.storeUserId !== session.storeUserId || stamp !== session.passwordStamp) {
      await deleteSessionRow(this.deps.db, session.id);
      return "ended";
    }
    const isAdmin = (await this.rolesOf(user)).includes("admin");
    // Best effort: while another process holds SQLite's write lock the request is still served
    // from what was just read, and the next request records the check.
    await markSessionChecked(this.deps.db, session.id, now, isAdmin).catch((error: unknown) => {
      if (!isBusy(error)) throw error;
    });
    return { isAdmin };
  }

  /**
   * The store's user (null: gone), or undefined when the store is out and what was read at
   * `checkedAt` may still serve (then 503 once that is older than STALE_LIMIT_MS). A session's row
   * or a device token's (services/device-tokens.ts) is the subject.
   */
  async currentUser(
    session: { userUuid: string; checkedAt: Date },
    now: Date,
  ): Promise<StoreUser | null | undefined> {
    const fresh = now.getTime() - session.checkedAt.getTime() < STALE_LIMIT_MS;
    if (now.getTime() < this.storeRetryAt) {
      if (fresh) return undefined;
      throw storeUnavailable();
    }
    try {
      return await this.deps.store.findByUuid(session.userUuid);
    } catch (error) {
      // Only an unreachable store is waited out; anything else is a bug and surfaces as one.
      if (!(error instanceof AppError) || error.code !== "SERVICE_UNAVAILABLE") throw error;
      this.storeRetryAt = now.getTime() + STORE_RETRY_MS;
      this.deps.logger.warn("session re-check: the user store is unreachable", {
        servedFromSession: fresh,
        ...error.logFields,
      });
      if (fresh) return undefined;
      throw storeUnavailable();
    }
  }
}

/** 503 with Retry-After: the store cannot say what the account is now. */
export function storeUnavailable(): AppError {
  return new AppError(
    "SERVICE_UNAVAILABLE",
    "The user store is not reachable right now; try again shortly.",
    {
      headers: { "Retry-After": "5" },
    },
  );
}
