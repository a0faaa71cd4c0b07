// What staff see of a user's access on the console's user page (README "Console"): their API
// sessions (and ending them all), their live device tokens, and the grants their shop orders made.
// Each read is bounded: sessions by MAX_SESSIONS_PER_USER, tokens by MAX_DEVICE_TOKENS_PER_USER,
// grants by `limit`.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { Deps } from "../deps";
import { liveDeviceTokensOf } from "../repositories/device-tokens";
import { deleteSessionsOfUser, type SessionRow, sessionsOfUser } from "../repositories/sessions";
import { grantsOfUser, type ShopOrderGrantRow } from "../repositories/shop-orders";
import { type AuditSource, recordAudit } from "./audit";

export type { SessionRow } from "../repositories/sessions";
export type { ShopOrderGrantRow } from "../repositories/shop-orders";

export function listSessionsOfUser(db: Database, userUuid: string): Promise<SessionRow[]> {
  return sessionsOfUser(db, userUuid);
}

/**
 * Ends every API session of the user (their apps must sign in again) as a change staff made:
 * one audit event "user.endsessions" with how many ended.
 */
export function endSessionsOfUser(
  db: Database,
  by: AuditSource,
  userUuid: string,
  now: Date,
): Promise<number> {
  return withTransaction(db, async (tx) => {
    const ended = await deleteSessionsOfUser(tx, userUuid);
    await recordAudit(tx, {
      by,
      at: now,
      action: "user.endsessions",
      target: { type: "user", id: userUuid },
      changes: { sessions: [ended, 0] },
    });
    return ended;
  });
}

/** The user's device tokens still in force (never a token: only its prefix and name). */
export function listDeviceTokensOfUser(deps: Pick<Deps, "db" | "clock">, userUuid: string) {
  return liveDeviceTokensOf(deps.db, userUuid, deps.clock.now());
}

export function shopGrantsOfUser(
  db: Database,
  userUuid: string,
  limit: number,
): Promise<ShopOrderGrantRow[]> {
  return grantsOfUser(db, userUuid, limit);
}
