// Throttling (README, Configuration), with its state in the database so limits hold across
// instances.
import { createHash } from "node:crypto";
import type { Database } from "#db";
import { AppError, type ErrorCode } from "../lib/problems";
import { countEvent, countEvents, openCounts } from "../repositories/rate-limits";
import { InFlight } from "./in-flight";

export interface ThrottleRule {
  name: string;
  limit: number;
  windowMs: number;
}

/** The rules an attempt falls under, each with the subject it is counted against. */
export type Limits = ReadonlyArray<readonly [ThrottleRule, string]>;

/** One attempt's place under its limits, held until the attempt ends one of these ways, once. */
export interface ThrottleSlot {
  /** The attempt succeeded: its slot is given back, nothing counted. */
  succeeded(): void;
  /** The attempt failed (a wrong guess): one failure recorded against each limit, then given back. */
  failed(): Promise<void>;
  /** The attempt ended without an answer to the guess (an outage): given back, nothing counted. */
  abandoned(): void;
}

const unthrottled: ThrottleSlot = {
  succeeded: () => {},
  failed: async () => {},
  abandoned: () => {},
};

const MINUTE = 60_000;

export const throttleRules = {
  /** Failed logins per (client address, account): the store user the name resolves to. */
  loginFailures: { name: "login", limit: 10, windowMs: 15 * MINUTE },
  /** Failed logins per client address, whatever the names (password spraying). */
  loginFailuresPerAddress: { name: "login-addr", limit: 100, windowMs: 15 * MINUTE },
  /** Failed redemptions per user and per client address. */
  redeemFailuresPerUser: { name: "redeem-user", limit: 10, windowMs: 15 * MINUTE },
  redeemFailuresPerAddress: { name: "redeem-addr", limit: 50, windowMs: 15 * MINUTE },
  /** Failed claims of a guest order (wrong order number or key) per user and per client address. */
  claimFailuresPerUser: { name: "claim-user", limit: 10, windowMs: 15 * MINUTE },
  claimFailuresPerAddress: { name: "claim-addr", limit: 50, windowMs: 15 * MINUTE },
  /** Registrations per client address. */
  registrations: { name: "register", limit: 20, windowMs: 60 * MINUTE },
} satisfies Record<string, ThrottleRule>;

/**
 * Only failures count, and attempts in flight count as failures until they end. An
 * attempt first takes a slot under each of its limits: refused (429) when the failures recorded
 * in the database already fill a limit; made to wait when the failures and the attempts still
 * running fill it, until one of those ends; run otherwise. When it ends, a failure is recorded
 * (one atomic upsert, exact across instances) before its slot is given back; a success just gives
 * its slot back. So a parallel burst of N wrong guesses against a limit of L is evaluated L times
 * and answered N − L × 429, while a success never meets a 429 because of requests beside it: it
 * may wait for them, and it is refused only when failures have really filled the limit. (Refusing
 * where it waits would make successes pay for their neighbours: a holder with 8 earlier failures
 * retrying a valid code 10 times at once would get seven 429s.)
 *
 * The failures live in the database; the attempts running live in this process's memory
 * (in-flight.ts), so a slot cannot outlive its attempt, even when the process dies. With several
 * instances the in-flight part of the bound is per instance: a burst spread over n instances at
 * once may be evaluated up to n × L times, and is refused everywhere once L failures are recorded.
 */
export class Throttle {
  private readonly inFlight = new InFlight();

  constructor(
    private readonly db: Database,
    private readonly enabled: boolean,
  ) {}

  /**
   * Takes a slot under each of the limits for one attempt: throws 429 with Retry-After when the
   * recorded failures fill any limit, waits while the attempts running beside it fill one. The
   * caller must end the slot (`succeeded`, `failed` or `abandoned`), whatever happens.
   */
  async enter(limits: Limits, now: Date): Promise<ThrottleSlot> {
    if (!this.enabled || limits.length === 0) return unthrottled;
    const rules = limits.map(([rule, subject]) => ({ key: keyOf(rule, subject), rule }));
    const keys = rules.map(({ key }) => key);
    const unwatch = this.inFlight.watch(keys);
    try {
      for (;;) {
        const failedBefore = this.inFlight.failedCounts(keys);
        const counts = await openCounts(this.db, keys, now);
        // An attempt that failed during the read may have recorded its failure after the read
        // saw the database, and no longer counts as running: read again, or it counts nowhere.
        const failedAfter = this.inFlight.failedCounts(keys);
        if (failedAfter.some((failed, i) => failed !== failedBefore[i])) continue;
        // From here to the `start` or the wait nothing awaits: no attempt can end unseen.
        const recorded = new Map(counts.map((row) => [row.key, row]));
        const failuresOf = (key: string) => recorded.get(key)?.count ?? 0;
        const full = rules.filter(({ key, rule }) => failuresOf(key) >= rule.limit);
        if (full.length > 0) {
          const until = Math.max(...full.map(({ key }) => recorded.get(key)!.windowEndsAt.getTime()));
          throw tooManyRequests(new Date(until), now);
        }
        const busy = rules.filter(
          ({ key, rule }) => failuresOf(key) + this.inFlight.running(key) >= rule.limit,
        );
        if (busy.length === 0) return this.slot(limits, now, this.inFlight.start(keys));
        await this.inFlight.nextEnd(busy.map(({ key }) => key));
      }
    } finally {
      unwatch();
    }
  }

  /**
   * Runs `attempt` in a slot under the limits; a failure is recorded when it throws one of
   * `failures` (errors that are not the caller's guess, such as an outage, cost nothing).
   */
  async guard<T>(
    limits: Limits,
    now: Date,
    attempt: () => Promise<T>,
    failures: readonly ErrorCode[],
  ): Promise<T> {
    const slot = await this.enter(limits, now);
    try {
      const result = await attempt();
      slot.succeeded();
      return result;
    } catch (error) {
      if (error instanceof AppError && failures.includes(error.code)) await slot.failed();
      else slot.abandoned();
      throw error;
    }
  }

  private slot(limits: Limits, now: Date, end: (failureRecorded: boolean) => void): ThrottleSlot {
    return {
      succeeded: () => end(false),
      abandoned: () => end(false),
      failed: async () => {
        let recorded = false;
        try {
          // Recorded before the slot is given back: in between, it counts twice, never zero times.
          await countEvents(
            this.db,
            limits.map(([rule, subject]) => ({ key: keyOf(rule, subject), windowMs: rule.windowMs })),
            now,
          );
          recorded = true;
        } finally {
          end(recorded);
        }
      },
    };
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
