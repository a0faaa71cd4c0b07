// Work cut into slices gives the event loop a turn once a slice has used its budget, and not
// before: a timer due meanwhile runs in the middle of the work, not after it.
import { describe, expect, test } from "bun:test";
import { LoopSlices } from "../../src/lib/loop-slices";

function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

describe("LoopSlices", () => {
  test("a timer due during sliced work runs between slices", async () => {
    let timerRanAfter = -1;
    let done = 0;
    setTimeout(() => {
      timerRanAfter = done;
    }, 0);
    const slices = new LoopSlices(5);
    for (let i = 0; i < 20; i++) {
      await slices.pause();
      busyFor(1);
      done++;
    }
    // Without the pauses the timer would run only after all 20 steps.
    expect(timerRanAfter).toBeGreaterThanOrEqual(0);
    expect(timerRanAfter).toBeLessThan(20);
  });

  test("within its budget a slice does not give the loop a turn", async () => {
    let timerRan = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    const slices = new LoopSlices(60_000);
    for (let i = 0; i < 5; i++) await slices.pause();
    expect(timerRan).toBe(false);
  });
});
