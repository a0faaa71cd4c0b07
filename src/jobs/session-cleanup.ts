import type { Database } from "#db";
import type { Config } from "../config";
import type { Clock } from "../lib/clock";
import { deleteActivationEndsBefore } from "../repositories/activation-ends";
import { deleteEndedConsoleSessions } from "../repositories/console-sessions";
import { deleteEndedDeviceTokens } from "../repositories/device-tokens";
import { deleteExpiredWindows } from "../repositories/rate-limits";
import { deleteEndedSessions } from "../repositories/sessions";

/** How long an ended device token (revoked or expired) stays, to be shown to support, before it goes. */
export const ENDED_DEVICE_TOKENS_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

/** Records of ended activations deleted per statement: a backlog goes in slices, not one long write. */
export const ACTIVATION_END_SLICE = 1000;

/**
 * Deletes sessions past SESSION_TTL or idle past SESSION_IDLE_TIMEOUT, console sessions past
 * CONSOLE_SESSION_TTL or idle past CONSOLE_IDLE_TIMEOUT (README "Console"), device tokens ended more
 * than ENDED_DEVICE_TOKENS_KEPT_MS ago (so a user who makes and revokes tokens in a loop does not
 * grow the table), throttling windows that have closed, and records of activations that ended
 * more than ENTITLEMENT_TTL ago (no entitlements token can still list their books; README
 * "Offline entitlements"), in slices. Idempotent, so several instances may run it.
 */
export async function cleanupSessions(deps: { db: Database; config: Config; clock: Clock }): Promise<{
  sessions: number;
  consoleSessions: number;
  deviceTokens: number;
  rateLimits: number;
  activationEnds: number;
}> {
  const now = deps.clock.now();
  const idleBefore = new Date(now.getTime() - deps.config.sessionIdleTimeoutMs);
  const sessions = await deleteEndedSessions(deps.db, now, idleBefore);
  const consoleSessions = await deleteEndedConsoleSessions(
    deps.db,
    now,
    new Date(now.getTime() - deps.config.consoleIdleTimeoutMs),
  );
  const deviceTokens = await deleteEndedDeviceTokens(
    deps.db,
    new Date(now.getTime() - ENDED_DEVICE_TOKENS_KEPT_MS),
  );
  const rateLimits = await deleteExpiredWindows(deps.db, now);
  const endedBefore = new Date(now.getTime() - deps.config.entitlementTtlMs);
  let activationEnds = 0;
  for (;;) {
    const deleted = await deleteActivationEndsBefore(deps.db, endedBefore, ACTIVATION_END_SLICE);
    activationEnds += deleted;
    if (deleted < ACTIVATION_END_SLICE) break;
  }
  return { sessions, consoleSessions, deviceTokens, rateLimits, activationEnds };
}
