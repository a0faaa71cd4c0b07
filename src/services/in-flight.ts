// The throttled attempts this process is running, per throttle key: what the database's failure
// counts cannot know yet (throttle.ts). Kept in memory on purpose: an attempt's slot lives exactly
// as long as the attempt, so a process that dies takes its slots with it and nothing can leak.

interface KeyState {
  /** Attempts holding a slot under this key now. */
  running: number;
  /**
   * Attempts that ended in a recorded failure under this key so far: an admission compares it
   * before and after reading the database's counts (throttle.ts).
   */
  failed: number;
  /** Admissions looking at this key (reading counts or waiting): the state must outlive them. */
  watchers: number;
  /** Called once when the next attempt under this key ends. */
  onEnd: Set<() => void>;
}

export class InFlight {
  private readonly states = new Map<string, KeyState>();

  /** Attempts running under `key`. */
  running(key: string): number {
    return this.states.get(key)?.running ?? 0;
  }

  /** How many attempts under each key ended in a recorded failure (for a key being watched). */
  failedCounts(keys: readonly string[]): number[] {
    return keys.map((key) => this.states.get(key)?.failed ?? 0);
  }

  /**
   * Keeps the state of `keys` while an admission looks at them (their `failed` counts must not
   * restart from zero under it); the returned function lets go.
   */
  watch(keys: readonly string[]): () => void {
    for (const key of keys) this.stateOf(key).watchers += 1;
    return () => {
      for (const key of keys) {
        const state = this.stateOf(key);
        state.watchers -= 1;
        this.forgetIfIdle(key, state);
      }
    };
  }

  /**
   * Takes a slot under each of `keys`; the returned function gives them back, once, saying whether
   * the attempt's failure was recorded (only then may a read of the counts have missed it).
   */
  start(keys: readonly string[]): (failureRecorded: boolean) => void {
    for (const key of keys) this.stateOf(key).running += 1;
    let ended = false;
    return (failureRecorded) => {
      if (ended) return;
      ended = true;
      for (const key of keys) {
        const state = this.stateOf(key);
        state.running -= 1;
        if (failureRecorded) state.failed += 1;
        const waiting = [...state.onEnd];
        state.onEnd.clear();
        for (const wake of waiting) wake();
        this.forgetIfIdle(key, state);
      }
    };
  }

  /** Resolves when an attempt under any of `keys` ends (the caller watches them). */
  nextEnd(keys: readonly string[]): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        for (const key of keys) this.states.get(key)?.onEnd.delete(wake);
        resolve();
      };
      for (const key of keys) this.stateOf(key).onEnd.add(wake);
    });
  }

  private stateOf(key: string): KeyState {
    let state = this.states.get(key);
    if (!state) {
      state = { running: 0, failed: 0, watchers: 0, onEnd: new Set() };
      this.states.set(key, state);
    }
    return state;
  }

  private forgetIfIdle(key: string, state: KeyState): void {
    if (state.running === 0 && state.watchers === 0) this.states.delete(key);
  }
}
