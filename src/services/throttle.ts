// Throttling of API.md/DESIGN.md, with its state in the database so limits hold across instances.
import { createHash } from "node:crypto";
import type { Database } from "#db";
import { AppError } from "../lib/problems";
import { countEvent, findExceeded } from "../repositories/rate-limits";

export interface ThrottleRule {
  name: string;
  limit: number;
  windowMs: number;
}

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

  /** Throws 429 with Retry-After while `subject` is over the rule's limit. */
  async assertAllowed(rule: ThrottleRule, subject: string, now: Date): Promise<void> {
    if (!this.enabled) return;
    const exceeded = await findExceeded(this.db, keyOf(rule, subject), rule.limit, now);
    if (exceeded) throw tooManyRequests(exceeded.windowEndsAt, now);
  }

  /** Counts an event (a failure, or a registration) against `subject`. */
  async record(rule: ThrottleRule, subject: string, now: Date): Promise<void> {
    if (!this.enabled) return;
    await countEvent(this.db, keyOf(rule, subject), rule.windowMs, now);
  }

  /** Counts the event and throws 429 when it went over the limit. */
  async consume(rule: ThrottleRule, subject: string, now: Date): Promise<void> {
    if (!this.enabled) return;
    const { count, windowEndsAt } = await countEvent(this.db, keyOf(rule, subject), rule.windowMs, now);
    if (count > rule.limit) throw tooManyRequests(windowEndsAt, now);
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
