// Throttling of API.md/DESIGN.md, with its state in the database so limits hold across instances.
import { createHash } from "node:crypto";
import type { Database } from "#db";
import { AppError, type ErrorCode } from "../lib/problems";
import { countEvent, countEvents, openCounts } from "../repositories/rate-limits";

export interface ThrottleRule {
  name: string;
  limit: number;
  windowMs: number;
}

/** The rules an attempt falls under, each with the subject it is counted against. */
export type Limits = ReadonlyArray<readonly [ThrottleRule, string]>;

const MINUTE = 60_000;

export const throttleRules = {
  /** Failed logins per (client address, account): the store user the name resolves to. */
  loginFailures: { name: "login", limit: 10, windowMs: 15 * MINUTE },
  /** Failed logins per client address, whatever the names (password spraying). */
  loginFailuresPerAddress: { name: "login-addr", limit: 100, windowMs: 15 * MINUTE },
  /** Failed redemptions per user and per client address. */
  redeemFailuresPerUser: { name: "redeem-user", limit: 10, windowMs: 15 * MINUTE },
  redeemFailuresPerAddress: { name: "redeem-addr", limit: 50, windowMs: 15 * MINUTE },
  /** Registrations per client address. */
  registrations: { name: "register", limit: 20, windowMs: 60 * MINUTE },
} satisfies Record<string, ThrottleRule>;

/**
 * Only failures count. A request is refused (429) when one of its limits has already recorded
 * its limit of failures in the current window; otherwise it runs, and only a failure is recorded,
 * after it happened, in one atomic upsert per failure (exact across instances).
 *
 * The trade: requests in flight are not counted until they fail, so a parallel burst of bad
 * guesses can overshoot a limit by as many requests as are in flight at once (each still pays
 * its full cost: a password hash, a transaction). Counting slots before the attempt instead made
 * successes meet 429 because of requests beside them: a holder with 8 earlier failures retrying
 * a valid code 10 times at once got seven 429s. Successes must never pay for their neighbours.
 */
export class Throttle {
  constructor(
    private readonly db: Database,
    private readonly enabled: boolean,
  ) {}

  /** 429 with Retry-After when any of the limits is full; reads only, counts nothing. */
  async check(limits: Limits, now: Date): Promise<void> {
    if (!this.enabled || limits.length === 0) return;
    const limitOf = new Map(limits.map(([rule, subject]) => [keyOf(rule, subject), rule.limit]));
    const counts = await openCounts(this.db, [...limitOf.keys()], now);
    const full = counts.filter((row) => row.count >= (limitOf.get(row.key) ?? Number.POSITIVE_INFINITY));
    if (full.length === 0) return;
    const until = Math.max(...full.map((row) => row.windowEndsAt.getTime()));
    throw tooManyRequests(new Date(until), now);
  }

  /** Records one failure against each of the limits. */
  async recordFailure(limits: Limits, now: Date): Promise<void> {
    if (!this.enabled || limits.length === 0) return;
    await countEvents(
      this.db,
      limits.map(([rule, subject]) => ({ key: keyOf(rule, subject), windowMs: rule.windowMs })),
      now,
    );
  }

  /**
   * Runs `attempt` under failure limits: check, attempt, and a failure recorded when the attempt
   * throws one of `failures` (errors that are not the caller's guess, such as an outage, cost
   * nothing).
   */
  async guard<T>(
    limits: Limits,
    now: Date,
    attempt: () => Promise<T>,
    failures: readonly ErrorCode[],
  ): Promise<T> {
    await this.check(limits, now);
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof AppError && failures.includes(error.code)) await this.recordFailure(limits, now);
      throw error;
    }
  }

  /** Counts the event (success or not) and throws 429 when it went over the limit. */
  async consume(rule: ThrottleRule, subject: string, now: Date): Promise<void> {
    if (!this.enabled) return;
    const { count, windowEndsAt } = await countEvent(this.db, keyOf(rule, subject), rule.windowMs, now);
    if (count > rule.limit) throw tooManyRequests(windowEndsAt, now);
  }
}

function keyOf(rule: ThrottleRule, subject: string): string {
  // Subjects carry what clients typed (login names); a digest keeps keys short and opaque.
  const digest = createHash("sha256").update(subject).digest("base64url");
  return `${rule.name}:${digest}`;
}

function tooManyRequests(windowEndsAt: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((windowEndsAt.getTime() - now.getTime()) / 1000));
  return new AppError("TOO_MANY_REQUESTS", `Too many attempts; try again in ${seconds} seconds.`, {
    headers: { "Retry-After": String(seconds) },
  });
}
