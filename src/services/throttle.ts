// Throttling of API.md/DESIGN.md, with its state in the database so limits hold across instances.
import { createHash } from "node:crypto";
import type { Database } from "#db";
import { AppError, type ErrorCode } from "../lib/problems";
import { type CountedEvent, countEvent, countEvents, uncountEvent } from "../repositories/rate-limits";

export interface ThrottleRule {
  name: string;
  limit: number;
  windowMs: number;
}

/** The rules an attempt falls under, each with the subject it is counted against. */
export type Limits = ReadonlyArray<readonly [ThrottleRule, string]>;

const MINUTE = 60_000;

export const throttleRules = {
  /** Failed logins per (client address, login). */
  loginFailures: { name: "login", limit: 10, windowMs: 15 * MINUTE },
  /** Failed redemptions per user and per client address. */
  redeemFailuresPerUser: { name: "redeem-user", limit: 10, windowMs: 15 * MINUTE },
  redeemFailuresPerAddress: { name: "redeem-addr", limit: 50, windowMs: 15 * MINUTE },
  /** Registrations per client address. */
  registrations: { name: "register", limit: 20, windowMs: 60 * MINUTE },
} satisfies Record<string, ThrottleRule>;

export class Throttle {
  constructor(
    private readonly db: Database,
    private readonly enabled: boolean,
  ) {}

  /**
   * Runs `attempt` under failure limits. A slot of every limit is taken before the attempt, in
   * one atomic statement: checking first and counting after the failure let a burst of parallel
   * guesses all pass the check. 429 with Retry-After when a limit is full. The slots are given
   * back unless the attempt fails with one of `failures`, so successes (and errors that are not
   * the caller's guess, such as an outage) cost nothing.
   */
  async guard<T>(
    limits: Limits,
    now: Date,
    attempt: () => Promise<T>,
    failures: readonly ErrorCode[],
  ): Promise<T> {
    if (!this.enabled) return attempt();
    const slots = await this.take(limits, now);
    let result: T;
    try {
      result = await attempt();
    } catch (error) {
      if (!(error instanceof AppError && failures.includes(error.code))) await this.giveBack(slots);
      throw error;
    }
    await this.giveBack(slots);
    return result;
  }

  /** Counts the event and throws 429 when it went over the limit. */
  async consume(rule: ThrottleRule, subject: string, now: Date): Promise<void> {
    if (!this.enabled) return;
    const { count, windowEndsAt } = await countEvent(this.db, keyOf(rule, subject), rule.windowMs, now);
    if (count > rule.limit) throw tooManyRequests(windowEndsAt, now);
  }

  private async take(limits: Limits, now: Date): Promise<CountedEvent[]> {
    const events = limits.map(([rule, subject]) => ({ key: keyOf(rule, subject), ...rule }));
    const limitOf = new Map(events.map((event) => [event.key, event.limit]));
    const slots = await countEvents(this.db, events, now);
    const full = slots.filter((slot) => slot.count > (limitOf.get(slot.key) ?? 0));
    if (full.length === 0) return slots;
    // A refused request is no attempt: it gives back every slot it took, the full ones included.
    await this.giveBack(slots);
    const until = Math.max(...full.map((slot) => slot.windowEndsAt.getTime()));
    throw tooManyRequests(new Date(until), now);
  }

  /**
   * Best effort: a slot that cannot be given back (the database just went away) costs the caller
   * one attempt until its window ends, which is better than failing the request that owned it.
   */
  private async giveBack(slots: CountedEvent[]): Promise<void> {
    await Promise.all(slots.map((slot) => uncountEvent(this.db, slot).catch(() => undefined)));
  }
}

function keyOf(rule: ThrottleRule, subject: string): string {
  // Subjects carry what clients typed (login names); a digest keeps keys short and opaque.
  const digest = createHash("sha256").update(subject.toLowerCase()).digest("base64url");
  return `${rule.name}:${digest}`;
}

function tooManyRequests(windowEndsAt: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((windowEndsAt.getTime() - now.getTime()) / 1000));
  return new AppError("TOO_MANY_REQUESTS", `Too many attempts; try again in ${seconds} seconds.`, {
    headers: { "Retry-After": String(seconds) },
  });
}
