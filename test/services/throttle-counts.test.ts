// The throttle's first read (repositories/rate-limits.ts openCounts): the recorded failures of the
// keys asked for whose window is still open. Its statement is prepared once per number of keys,
// so asking with two keys, then one, then two others must each see only their own keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countEvents, openCounts } from "../../src/repositories/rate-limits";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";

const MINUTE = 60_000;

describe("openCounts", () => {
  let database: TestDatabase;
  const now = new Date("2026-03-01T12:00:00.000Z");

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database.handle;
    // "a" failed twice, "b" once, both in open windows; "old" in a window that ended before now.
    await countEvents(db, [{ key: "a", windowMs: 15 * MINUTE }], now);
    await countEvents(
      db,
      [
        { key: "a", windowMs: 15 * MINUTE },
        { key: "b", windowMs: 15 * MINUTE },
      ],
      now,
    );
    await countEvents(db, [{ key: "old", windowMs: MINUTE }], new Date(now.getTime() - 2 * MINUTE));
  });

  afterAll(async () => {
    await database.drop();
  });

  const countsOf = async (keys: string[]) =>
    Object.fromEntries(
      (await openCounts(database.handle.db, keys, now)).map((row) => [row.key, row.count] as const),
    );

  test("each key asked for with an open window, with its count; no other key", async () => {
    expect(await countsOf(["a", "b"])).toEqual({ a: 2, b: 1 });
    expect(await countsOf(["b"])).toEqual({ b: 1 });
    expect(await countsOf(["a"])).toEqual({ a: 2 });
    expect(await countsOf(["b", "nobody"])).toEqual({ b: 1 });
  });

  test("a window that has ended counts nothing, and no key asks for nothing", async () => {
    expect(await countsOf(["old"])).toEqual({});
    expect(await countsOf(["old", "a"])).toEqual({ a: 2 });
    expect(await countsOf([])).toEqual({});
  });

  test("the window's end comes back as the Date it was recorded with", async () => {
    const [row] = await openCounts(database.handle.db, ["b"], now);
    expect(row!.windowEndsAt).toEqual(new Date(now.getTime() + 15 * MINUTE));
  });
});
