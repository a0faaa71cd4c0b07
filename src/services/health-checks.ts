// The deep checks behind GET /health (operationId getHealth): whether the database takes a
// write, the store answers and the storage takes uploads. Anyone may ask /health as often as
// they like, so the checks run at most once per CHECK_INTERVAL_MS per instance: one run in
// flight that every concurrent caller awaits, and its result kept for the interval. Each part
// answers within PART_TIMEOUT_MS or counts as down, so a caller never waits longer than that.

export type PartState = "ok" | "unavailable";

export interface HealthParts {
  database: PartState;
  store: PartState;
  storage: PartState;
}

export type HealthProbes = { [part in keyof HealthParts]: () => Promise<void> };

/** How long a result stands: an outage (and a recovery) shows within this much. */
export const CHECK_INTERVAL_MS = 10_000;
/**
 * A part that does not answer in time counts as down: /health answers within a second whatever
 * the database or the volume is doing, and balancers time out their checks.
 */
export const PART_TIMEOUT_MS = 800;

interface Run {
  startedAt: number;
  result: Promise<HealthParts>;
}

export class HealthChecks {
  private last: Run | undefined;
  /**
   * A part's call that outlived its timeout and has not settled yet. The next run waits on it
   * again instead of starting another, so a hung database or bucket never holds more than one
   * of our calls.
   */
  private readonly pending = new Map<keyof HealthParts, Promise<void>>();

  constructor(
    private readonly probes: HealthProbes,
    /** Milliseconds on the deps' clock, so tests can move time. */
    private readonly now: () => number,
    private readonly intervalMs = CHECK_INTERVAL_MS,
    private readonly timeoutMs = PART_TIMEOUT_MS,
  ) {}

  /** The current state of every part: the last run's while it is younger than the interval. */
  current(): Promise<HealthParts> {
    const now = this.now();
    const age = this.last ? now - this.last.startedAt : Number.POSITIVE_INFINITY;
    // A clock set back makes the age negative: run again rather than trust a result "from the future".
    if (this.last && age >= 0 && age < this.intervalMs) return this.last.result;
    const run: Run = { startedAt: now, result: this.run() };
    this.last = run;
    return run.result;
  }

  private async run(): Promise<HealthParts> {
    const [database, store, storage] = await Promise.all([
      this.probe("database"),
      this.probe("store"),
      this.probe("storage"),
    ]);
    return { database, store, storage };
  }

  private async probe(part: keyof HealthParts): Promise<PartState> {
    let call = this.pending.get(part);
    if (!call) {
      // A probe that throws synchronously is a failed part too.
      call = Promise.resolve().then(this.probes[part]);
      const settled = call;
      this.pending.set(part, settled);
      const forget = () => {
        if (this.pending.get(part) === settled) this.pending.delete(part);
      };
      settled.then(forget, forget);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("timeout")), this.timeoutMs);
    });
    try {
      await Promise.race([call, timeout]);
      return "ok";
    } catch {
      return "unavailable";
    } finally {
      clearTimeout(timer);
    }
  }
}
