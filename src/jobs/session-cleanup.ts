import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import { deleteEndedDeviceTokens } from "../repositories/device-tokens";
import { deleteExpiredWindows } from "../repositories/rate-limits";
import { deleteEndedSessions } from "../repositories/sessions";

/** How long an ended device token (revoked or expired) stays, to be shown to support, before it goes. */
export const ENDED_DEVICE_TOKENS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes sessions past SESSION_TTL or idle past SESSION_IDLE_TIMEOUT, device tokens ended more
 * than ENDED_DEVICE_TOKENS_KEPT_MS ago (so a user who makes and revokes tokens in a loop does not
 * grow the table), and throttling windows that have closed. Idempotent, so several instances may
 * run it.
 */
export async function cleanupSessions(deps: {
  db: Database;
  config: Config;
  clock: Clock;
}): Promise<{ sessions: number; deviceTokens: number; rateLimits: number }> {
  const now = deps.clock.now();
  const idleBefore = new Date(now.getTime() - deps.config.sessionIdleTimeoutMs);
  const sessions = await deleteEndedSessions(deps.db, now, idleBefore);
  const deviceTokens = await deleteEndedDeviceTokens(
    deps.db,
    new Date(now.getTime() - ENDED_DEVICE_TOKENS_KEPT_MS),
  );
  const rateLimits = await deleteExpiredWindows(deps.db, now);
  return { sessions, deviceTokens, rateLimits };
}
