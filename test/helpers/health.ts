// Waiting for /health to show a change: its deep checks stand for an interval
// (src/services/health-checks.ts), so an outage, and a recovery, shows within that much.
import { CHECK_INTERVAL_MS, PART_TIMEOUT_MS } from "../../src/services/health-checks";

/** The interval, a check's own time and a margin for a loaded machine. */
export const HEALTH_SHOWS_WITHIN_MS = CHECK_INTERVAL_MS + PART_TIMEOUT_MS + 2_000;

export interface HealthPoll {
  status: number;
  retryAfter: string | null;
  body: Record<string, string>;
  /** How long this answer took: /health answers within a second whatever is down. */
  ms: number;
  /** How long until the change showed. */
  shownAfterMs: number;
  /** The longest any poll took. */
  longestMs: number;
}

/** Asks /health every 200 ms until `done` holds for an answer; that answer. */
export async function healthUntil(
  url: string,
  done: (answer: { status: number; body: Record<string, string> }) => boolean,
  limitMs = HEALTH_SHOWS_WITHIN_MS,
): Promise<HealthPoll> {
  const started = performance.now();
  let longestMs = 0;
  while (true) {
    const asked = performance.now();
    const response = await fetch(`${url}/health`);
    const body = (await response.json()) as Record<string, string>;
    const ms = performance.now() - asked;
    longestMs = Math.max(longestMs, ms);
    const answer = { status: response.status, body };
    if (done(answer)) {
      const shownAfterMs = performance.now() - started;
      return { ...answer, retryAfter: response.headers.get("retry-after"), ms, shownAfterMs, longestMs };
    }
    if (performance.now() - started > limitMs) {
      throw new Error(
        `/health did not change within ${limitMs} ms: ${response.status} ${JSON.stringify(body)}`,
      );
    }
    await Bun.sleep(200);
  }
}
