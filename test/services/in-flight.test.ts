// The in-memory half of the throttle (services/in-flight.ts): slots per key, given back once,
// waiters woken by any end, and nothing kept for a key once no attempt or admission uses it.
import { expect, test } from "bun:test";
import { InFlight } from "../../src/services/in-flight";

test("a slot is counted under each of its keys until it ends, and ends only once", () => {
  const inFlight = new InFlight();
  const end = inFlight.start(["user", "address"]);
  inFlight.start(["address"]);
  expect([inFlight.running("user"), inFlight.running("address")]).toEqual([1, 2]);
  end(false);
  end(false);
  expect([inFlight.running("user"), inFlight.running("address")]).toEqual([0, 1]);
});

test("only an end with a recorded failure moves the failed count an admission compares", () => {
  const inFlight = new InFlight();
  const unwatch = inFlight.watch(["user"]);
  inFlight.start(["user"])(false);
  expect(inFlight.failedCounts(["user"])).toEqual([0]);
  inFlight.start(["user"])(true);
  expect(inFlight.failedCounts(["user"])).toEqual([1]);
  unwatch();
  // Nobody looks at the key any more: its state is gone, not kept for ever.
  expect(inFlight.failedCounts(["user"])).toEqual([0]);
});

test("a waiter wakes at the next end under any of its keys, whatever the outcome", async () => {
  const inFlight = new InFlight();
  const end = inFlight.start(["address"]);
  const unwatch = inFlight.watch(["user", "address"]);
  let woken = false;
  const waiting = inFlight.nextEnd(["user", "address"]).then(() => {
    woken = true;
  });
  await Promise.resolve();
  expect(woken).toBe(false);
  end(false);
  await waiting;
  expect(woken).toBe(true);
  unwatch();
});
