// A fixed number of places, handed out first come first served: how many heavy renders (print
// sheets) or list snapshots run at once in this instance. The others wait in line, in order.

interface Waiter {
  resolve(): void;
}

export class Slots {
  private free: number;
  private readonly waiting: Waiter[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Waits for a free place; the function it answers gives the place back (once, however often called). */
  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push({ resolve }));
    return this.giver();
  }

  /**
   * take(), waiting at most `waitMs`: undefined when no place came free in time (the caller is
   * then out of the line, so a place freed later goes to the next one waiting).
   */
  async takeWithin(waitMs: number): Promise<(() => void) | undefined> {
    if (this.free > 0) {
      this.free--;
      return this.giver();
    }
    const got = await new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        resolve() {
          clearTimeout(timer);
          resolve(true);
        },
      };
      const timer = setTimeout(() => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve(false);
      }, waitMs);
      this.waiting.push(waiter);
    });
    return got ? this.giver() : undefined;
  }

  private giver(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // The place passes straight to the next in line, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next.resolve();
      else this.free++;
    };
  }

  /** Places taken now (for tests: what ended gave its place back). */
  get taken(): number {
    return this.size - this.free;
  }
}
