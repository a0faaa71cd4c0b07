// Long CPU work on the server's one thread, cut into slices: between two slices the event loop
// runs whatever else is waiting (other requests, /health), so no request holds it for long.

/** How long one slice may run before the loop gets a turn; well under the 50 ms a request may hold it. */
const SLICE_MS = 3;

/** A point where pending I/O callbacks and timers run before the work goes on. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Counts the time since the loop last had a turn. Time, not a number of items: how long an item
 * takes depends on the layout, the payload and the machine, and the budget is a time.
 */
export class LoopSlices {
  private since = performance.now();

  constructor(private readonly budgetMs = SLICE_MS) {}

  /** Yields to the loop when the current slice has used up its budget. */
  async pause(): Promise<void> {
    if (performance.now() - this.since < this.budgetMs) return;
    await nextTurn();
    this.since = performance.now();
  }
}
