// UserSession rows and the tokens that name them: a token is valid only while its row exists and
// has neither expired nor idled out (SESSION_TTL, SESSION_IDLE_TIMEOUT); logout ends it at once.
import type { Database } from "#db";
import { type Principal, rolesOf } from "../auth/principal";
import type { TokenSigner } from "../auth/tokens";
import { type Config, SESSION_TOUCH_INTERVAL_MS } from "../config";
import { deleteSession, deleteSessionsOfUser, findSession, insertSession } from "../repositories/sessions";
import type { StoreUser } from "../store/directory";
import type { AccountCheck } from "./account-check";

export interface SessionContext {
  db: Database;
  config: Config;
  signer: TokenSigner;
  accountCheck: AccountCheck;
}

export interface OpenedSession {
  token: string;
  expiresAt: Date;
  user: StoreUser;
  roles: Principal["roles"];
}

export async function openSession(
  ctx: SessionContext,
  user: StoreUser,
  meta: { userAgent: string | null; clientAddress: string | null; now: Date },
): Promise<OpenedSession> {
  const { now } = meta;
  const id = crypto.randomUUID();
  const expiresAt = new Date(now.getTime() + ctx.config.sessionTtlMs);
  const { isAdmin, passwordStamp } = await ctx.accountCheck.stateAtLogin(user);
  await insertSession(ctx.db, {
    // The token carries the id; the repository stores only its digest (lib/session-id.ts).
    id,
    userUuid: user.uuid,
    storeUserId: user.storeUserId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt,
    userAgent: meta.userAgent?.slice(0, 512) ?? null,
    clientAddress: meta.clientAddress,
    isAdmin,
    passwordStamp,
    checkedAt: now,
  });
  const roles = rolesOf(isAdmin);
  // The token carries a `roles` claim: informative for clients, never read back here.
  const token = ctx.signer.sign({
    sub: user.uuid,
    sid: id,
    roles,
    email: user.email,
    iat: Math.floor(now.getTime() / 1000),
    exp: Math.floor(expiresAt.getTime() / 1000),
  });
  return { token, expiresAt, user, roles };
}

/**
 * The principal of a Bearer token whose session still lives; null otherwise. Roles come from the
 * session row, which re-reads the account at least every SESSION_TOUCH_INTERVAL_MS (that write also
 * records the session's last use), so the hot path stays one indexed lookup.
 */
export async function principalFromToken(
  ctx: SessionContext,
  token: string,
  now: Date,
): Promise<Principal | null> {
  const claims = ctx.signer.verify(token, now);
  if (!claims) return null;
  const session = await findSession(ctx.db, claims.sid);
  if (!session || session.userUuid !== claims.sub) return null;
  if (session.expiresAt.getTime() <= now.getTime()) return null;
  if (session.lastSeenAt.getTime() + ctx.config.sessionIdleTimeoutMs <= now.getTime()) return null;
  let isAdmin = session.isAdmin;
  if (now.getTime() - session.checkedAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) {
    const state = await ctx.accountCheck.recheck(session, now);
    if (state === "ended") return null;
    isAdmin = state.isAdmin;
  }
  return {
    userUuid: session.userUuid,
    storeUserId: session.storeUserId,
    email: claims.email,
    roles: rolesOf(isAdmin),
    sessionId: claims.sid,
  };
}

/** Ends the caller's session, or all of the user's sessions; returns how many ended. */
export async function endSessions(db: Database, principal: Principal, allSessions: boolean): Promise<number> {
  if (allSessions) return deleteSessionsOfUser(db, principal.userUuid);
  return principal.sessionId ? deleteSession(db, principal.sessionId) : 0;
}
