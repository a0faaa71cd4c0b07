// Migration 0019 (active readers) on a database filled before it: each user's last active day is
// taken from their sessions and device tokens once, counted in daily_count, and the dashboard's
// active readers of the last 30 days are those users whose last day is in the window. SQLite or
// Postgres.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asc, sql } from "drizzle-orm";
import { migrate as migratePostgres } from "drizzle-orm/bun-sql/migrator";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { migrate as migrateSqlite } from "drizzle-orm/bun-sqlite/migrator";
import { sqlitePathFromUrl } from "../../src/db/client";
import { dashboardFigures } from "../../src/services/dashboard";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";

const DAY_MS = 86_400_000;

describe(`active readers after migration 0019 (${testDialect})`, () => {
  const drizzleRoot = new URL("../../drizzle/", import.meta.url).pathname;
  const folder = testDialect === "sqlite" ? "sqlite" : "pg";
  let dir: string;
  let database: TestDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bookdist-reader-activity-"));
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the migrations folder that stops before 0019. */
  function migrationsBefore0019(): string {
    const target = join(dir, "migrations");
    cpSync(join(drizzleRoot, folder), target, { recursive: true });
    const journalPath = join(target, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8"));
    journal.entries = journal.entries.filter((entry: { idx: number }) => entry.idx < 19);
    expect(journal.entries.at(-1).tag).toBe("0018_book-list-indexes");
    writeFileSync(journalPath, JSON.stringify(journal));
    return target;
  }

  test("the sessions and tokens before it give each reader's last day, once", async () => {
    const { db } = database.handle;
    const writer =
      testDialect === "sqlite"
        ? drizzleSqlite({ client: new SqliteConnection(sqlitePathFromUrl(database.url)) })
        : db.orm;
    const migrate = (migrationsFolder: string) =>
      testDialect === "sqlite"
        ? migrateSqlite(writer as never, { migrationsFolder })
        : migratePostgres(writer as never, { migrationsFolder });
    await migrate(migrationsBefore0019());
    const run = async (statement: string) => {
      const orm = writer as unknown as { run(q: unknown): unknown; execute(q: unknown): Promise<unknown> };
      if (testDialect === "sqlite") orm.run(sql.raw(statement));
      else await orm.execute(sql.raw(statement));
    };
    const now = new Date("2026-11-21T10:00:00.000Z");
    const at = (daysAgo: number) => {
      const time = new Date(now.getTime() - daysAgo * DAY_MS);
      return testDialect === "sqlite" ? String(time.getTime()) : `TIMESTAMPTZ '${time.toISOString()}'`;
    };
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

    await migrate(join(drizzleRoot, folder));
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
