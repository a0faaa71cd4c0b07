// A bound on how many heavy renders run at once in this instance. A sheet is seconds of CPU cut
// into slices (loop-slices.ts): every sheet running beside it adds a slice to each turn of the
// loop, so past a couple of them other requests would wait again. The others queue here, in order.

export class RenderSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(slots: number) {
    this.free = slots;
  }

  /** Waits for a free slot; the function it answers gives the slot back (once, however often called). */
  async take(): Promise<() => void> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // The slot passes straight to the next in line, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}
