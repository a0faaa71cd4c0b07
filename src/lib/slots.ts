// A fixed number of places, handed out first come first served: how many heavy renders (print
// sheets) or list snapshots run at once in this instance. The others wait in line, in order.

export class Slots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Waits for a free place; the function it answers gives the place back (once, however often called). */
  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // The place passes straight to the next in line, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }

  /** Places taken now (for tests: what ended gave its place back). */
  get taken(): number {
    return this.size - this.free;
  }
}
