/** Time comes from here, so tests can fix it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock for tests: starts at `start` and moves only when told to. */
export function fixedClock(
  start: Date | string,
): Clock & { advance(ms: number): void; set(date: Date | string): void } {
  let current = new Date(start).getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    set(date: Date | string) {
      current = new Date(date).getTime();
    },
  };
}
