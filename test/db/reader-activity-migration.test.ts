// Migration 0019 (active readers) on a database filled before it: each user's last active day is
// taken from their sessions and device tokens once, counted in daily_count, and the dashboard's
// active readers of the last 30 days are those users whose last day is in the window. SQLite or
// Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { asc, sql } from "drizzle-orm";
import { dashboardFigures } from "../../src/services/dashboard";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { migrateUntil } from "../helpers/migrations-until";

const DAY_MS = 86_400_000;

describe(`active readers after migration 0019 (${testDialect})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.drop());

  test("the sessions and tokens before it give each reader's last day, once", async () => {
    const { db } = database.handle;
    const old = await migrateUntil(database, "reader-activity");
    expect(old.lastTag).toBe("0018_book-list-indexes");
    const { run } = old;
    const now = new Date("2026-11-21T10:00:00.000Z");
    const at = (daysAgo: number) => old.timestamp(new Date(now.getTime() - daysAgo * DAY_MS));
    const session = (id: string, user: string, seenDaysAgo: number) =>
      run(`INSERT INTO user_session (id, user_uuid, store_user_id, created_at, last_seen_at, expires_at)
           VALUES ('${id}', '${user}', '1', ${at(seenDaysAgo + 1)}, ${at(seenDaysAgo)}, ${at(-30)})`);
    const token = (n: number, user: string, createdDaysAgo: number, usedDaysAgo: number | null) =>
      run(`INSERT INTO device_token (user_uuid, store_user_id, name, prefix, sha256, md5_sha256, scopes,
             password_stamp, created_at, last_used_at)
           VALUES ('${user}', '1', 'e-reader', 'abcdefgh', 'sha${n}', 'md5${n}', 'opds', '',
             ${at(createdDaysAgo)}, ${usedDaysAgo === null ? "NULL" : at(usedDaysAgo)})`);
    // Ann: two sessions, the latest seen today; Bob: seen 60 days ago only; Cy: a token used
    // yesterday; Di: a token made 10 days ago, never used, and an old session.
    await session("s1", "ann", 5);
    await session("s2", "ann", 0);
    await session("s3", "bob", 60);
    await token(1, "cy", 90, 1);
    await token(2, "di", 10, null);
    await session("s4", "di", 45);

    await old.migrateToEnd();
    const { readerActivity, dailyCount } = db.tables;
    const day = (daysAgo: number) => new Date(now.getTime() - daysAgo * DAY_MS).toISOString().slice(0, 10);
    expect(await db.orm.select().from(readerActivity).orderBy(asc(readerActivity.userUuid))).toEqual([
      { userUuid: "ann", day: day(0) },
      { userUuid: "bob", day: day(60) },
      { userUuid: "cy", day: day(1) },
      { userUuid: "di", day: day(10) },
    ]);
    const counted = await db.orm
      .select({ day: dailyCount.day, n: sql<number>`sum(${dailyCount.n})` })
      .from(dailyCount)
      .where(sql`${dailyCount.metric} = 'reader.last-active'`)
      .groupBy(dailyCount.day)
      .orderBy(asc(dailyCount.day));
    expect(counted.map((row) => ({ day: row.day, n: Number(row.n) }))).toEqual(
      [60, 10, 1, 0].map((daysAgo) => ({ day: day(daysAgo), n: 1 })),
    );
    expect((await dashboardFigures(db, now, 30)).activeReaders).toBe(3);
    expect((await dashboardFigures(db, new Date(now.getTime() + 25 * DAY_MS), 90)).activeReaders).toBe(2);
  });
});
