import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import { deleteExpiredWindows } from "../repositories/rate-limits";
import { deleteEndedSessions } from "../repositories/sessions";

/**
 * Deletes sessions past SESSION_TTL or idle past SESSION_IDLE_TIMEOUT, and throttling windows
 * that have closed. Idempotent, so several instances may run it.
 */
export async function cleanupSessions(deps: {
  db: Database;
  config: Config;
  clock: Clock;
}): Promise<{ sessions: number; rateLimits: number }> {
  const now = deps.clock.now();
  const idleBefore = new Date(now.getTime() - deps.config.sessionIdleTimeoutMs);
  const sessions = await deleteEndedSessions(deps.db, now, idleBefore);
  const rateLimits = await deleteExpiredWindows(deps.db, now);
  return { sessions, rateLimits };
}
