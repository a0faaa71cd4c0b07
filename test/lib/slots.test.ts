// The bound on sheets printed at once: beyond the slots, takers wait in order; a slot given back
// goes to the next in line; giving one back twice frees only one.
import { describe, expect, test } from "bun:test";
import { Slots } from "../../src/lib/slots";

describe("Slots", () => {
  test("two slots: the third taker waits until one is given back, then takers go in order", async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    const first = await slots.take();
    const second = await slots.take();
    const third = slots.take().then((giveBack) => {
      order.push("third");
      return giveBack;
    });
    const fourth = slots.take().then((giveBack) => {
      order.push("fourth");
      return giveBack;
    });
    await Bun.sleep(5);
    expect(order).toEqual([]);
    first();
    // Given back twice: still one slot, so the fourth goes on waiting.
    first();
    await Bun.sleep(5);
    expect(order).toEqual(["third"]);
    second();
    await fourth;
    expect(order).toEqual(["third", "fourth"]);
    (await third)();
    (await fourth)();
    // Both slots free again: two takers go at once.
    await Promise.all([slots.take(), slots.take()]);
  });
});
