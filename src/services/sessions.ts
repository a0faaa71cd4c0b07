// UserSession rows and the tokens that name them (DESIGN.md "Sessions and jobs").
import type { Database } from "#db";
import { type Principal, rolesFor } from "../auth/principal";
import type { TokenSigner } from "../auth/tokens";
import { type Config, SESSION_TOUCH_INTERVAL_MS } from "../config";
import { isBusy } from "../db/busy";
import {
  deleteSession,
  deleteSessionsOfUser,
  findSession,
  insertSession,
  touchSession,
} from "../repositories/sessions";
import type { StoreUser } from "../store/directory";

export interface SessionContext {
  db: Database;
  config: Config;
  signer: TokenSigner;
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
  await insertSession(ctx.db, {
    id,
    userUuid: user.uuid,
    storeUserId: user.storeUserId,
    createdAt: now,
    lastSeenAt: now,
    expiresAt,
    userAgent: meta.userAgent?.slice(0, 512) ?? null,
    clientAddress: meta.clientAddress,
  });
  const roles = rolesFor(user.storeRoles, user.email, ctx.config.adminEmails);
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

/** The principal of a Bearer token whose session still lives; null otherwise. */
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
  if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_INTERVAL_MS) {
    // Best effort: while another process holds SQLite's write lock a read is still served, and
    // the next request records the use (the idle timeout is at least two touch intervals).
    await touchSession(ctx.db, session.id, now).catch((error: unknown) => {
      if (!isBusy(error)) throw error;
    });
  }
  return {
    userUuid: claims.sub,
    storeUserId: session.storeUserId,
    email: claims.email,
    roles: claims.roles,
    sessionId: session.id,
  };
}

/** Ends the caller's session, or all of the user's sessions; returns how many ended. */
export async function endSessions(db: Database, principal: Principal, allSessions: boolean): Promise<number> {
  if (allSessions) return deleteSessionsOfUser(db, principal.userUuid);
  return principal.sessionId ? deleteSession(db, principal.sessionId) : 0;
}
