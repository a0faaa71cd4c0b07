// The run-sharing and time bounds of /health's deep checks, on a clock the test moves. What the
// checks cost against a real bucket and a real SQLite file is test/faults/health-cost.test.ts.
import { describe, expect, test } from "bun:test";
import { CHECK_INTERVAL_MS, HealthChecks, PART_TIMEOUT_MS } from "../../src/services/health-checks";

function counted(behaviour: () => Promise<void> = async () => {}) {
  const probe = Object.assign(
    async () => {
      probe.calls++;
      await behaviour();
    },
    { calls: 0 },
  );
  return probe;
}

describe("HealthChecks", () => {
  test("concurrent callers share one run; the result stands for the interval, then a failure shows", async () => {
    let now = 1_000_000;
    let failing = false;
    const database = counted();
    const store = counted();
    const storage = counted(async () => {
      if (failing) throw new Error("bucket refused");
    });
    const checks = new HealthChecks({ database, store, storage }, () => now);

    const together = await Promise.all(Array.from({ length: 100 }, () => checks.current()));
    expect([database.calls, store.calls, storage.calls]).toEqual([1, 1, 1]);
    for (const parts of together) expect(parts).toEqual({ database: "ok", store: "ok", storage: "ok" });

    failing = true;
    now += CHECK_INTERVAL_MS - 1;
    expect((await checks.current()).storage).toBe("ok");
    expect(storage.calls).toBe(1);
    now += 1;
    expect(await checks.current()).toEqual({ database: "ok", store: "ok", storage: "unavailable" });
    expect(storage.calls).toBe(2);
    // A failure stands for the interval too: a refusing bucket is not asked once per caller.
    await Promise.all(Array.from({ length: 100 }, () => checks.current()));
    expect(storage.calls).toBe(2);
  });

  test("a clock set back runs the checks again instead of trusting a result from the future", async () => {
    let now = 1_000_000;
    const database = counted();
    const checks = new HealthChecks({ database, store: counted(), storage: counted() }, () => now);
    await checks.current();
    now -= 60_000;
    await checks.current();
    expect(database.calls).toBe(2);
  });

  test("a part that hangs is unavailable within the time limit, and is not called again while it hangs", async () => {
    let now = 1_000_000;
    let release: () => void = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const database = counted(() => hung);
    const checks = new HealthChecks({ database, store: counted(), storage: counted() }, () => now);

    const started = performance.now();
    expect(await checks.current()).toEqual({ database: "unavailable", store: "ok", storage: "ok" });
    const tookMs = performance.now() - started;
    expect(tookMs).toBeGreaterThanOrEqual(PART_TIMEOUT_MS - 50);
    expect(tookMs).toBeLessThan(1000);

    now += CHECK_INTERVAL_MS;
    expect((await checks.current()).database).toBe("unavailable");
    expect(database.calls).toBe(1);

    // Once the hung call ends, the next run calls the part afresh.
    release();
    await Bun.sleep(0);
    now += CHECK_INTERVAL_MS;
    expect((await checks.current()).database).toBe("ok");
    expect(database.calls).toBe(2);
  });
});
