// The SQLite read worker (db/read-worker.ts): `GET /user`'s exact count and sorted page of a wide
// prefix visit every match, and at a million users that held the event loop ~100 ms (the scale
// bench's `GET /user?q=reader1`). Here they run on the handle's read worker: the loop turns while
// they are read (a timer set before fires before they answer, which a read on the loop's own
// connection cannot let happen), and the answers are the database's own, as the loop's reader
// gives them. A failed statement rejects with SQLite's message and code.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sqlitePathFromUrl } from "../../src/db/client";
import { readWorkerOf } from "../../src/db/read-worker";
import { fixedClock } from "../../src/lib/clock";
import { EmbeddedStore } from "../../src/store/embedded";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { onlyIn } from "../helpers/requires";

/** Users whose e-mail and login start "wide": enough that reading them all takes tens of ms. */
const WIDE = 60_000;
const OTHER = 1_000;

describe.if(onlyIn(testDialect === "sqlite", "the read worker is SQLite's"))("the SQLite read worker", () => {
  let database: TestDatabase;
  let store: EmbeddedStore;
  let file: SqliteConnection;

  beforeAll(async () => {
    database = await createTestDatabase();
    file = new SqliteConnection(sqlitePathFromUrl(database.url));
    file.exec("PRAGMA busy_timeout = 5000");
    const series = `(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${WIDE + OTHER}) SELECT i FROM s)`;
    // Logins and e-mails in another order than the ids: the page's order is the e-mail index's.
    const name = `CASE WHEN i <= ${WIDE} THEN 'wide' || ((i * 7919) % ${WIDE}) ELSE 'other' || i END`;
    file.exec("BEGIN");
    file.exec(
      `INSERT INTO store_user (id, user_login, user_pass, user_nicename, user_email, user_url, user_registered,
         user_activation_key, user_status, display_name)
       SELECT i + 1000, ${name}, '!', ${name}, ${name} || '@example.com', '', 0, '', 0, 'Reader ' || i FROM ${series}`,
    );
    file.exec("COMMIT");
    store = new EmbeddedStore(database.handle.db, fixedClock("2026-12-01T10:00:00.000Z"), 4);
  });
  afterAll(async () => {
    file?.close();
    await database?.drop();
  });

  test("the exact count of a wide prefix is read while the loop turns, and is the database's", async () => {
    let timerFirst: boolean | undefined;
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerFirst ??= true;
        resolve();
      }, 1),
    );
    const n = await store.countUsers("wide");
    timerFirst ??= false;
    await timer;
    expect(n).toBe(WIDE);
    expect(timerFirst).toBe(true);
    expect(await store.countUsers("other")).toBe(OTHER);
    expect(await store.countUsers("nobody")).toBe(0);
  });

  test("a page of a wide prefix: off the loop, the e-mail index's order, from any offset", async () => {
    const expected = (offset: number, direction: "ASC" | "DESC") =>
      (
        file
          .query(
            `SELECT user_email FROM store_user WHERE user_email LIKE 'wide%'
             ORDER BY lower(user_email) ${direction}, id LIMIT 25 OFFSET ${offset}`,
          )
          .all() as { user_email: string }[]
      ).map((row) => row.user_email);
    for (const [offset, direction] of [
      [0, "asc"],
      [WIDE - 10, "asc"],
      [1234, "desc"],
    ] as const) {
      let timerFirst: boolean | undefined;
      setTimeout(() => {
        timerFirst ??= true;
      }, 1);
      const users = await store.searchUsers({
        prefix: "WIDE",
        sort: [{ field: "email", direction }],
        limit: 25,
        offset,
      });
      timerFirst ??= false;
      expect(users.map((user) => user.email)).toEqual(expected(offset, direction === "asc" ? "ASC" : "DESC"));
      expect(timerFirst).toBe(true);
    }
  });

  test("a statement that fails rejects with SQLite's message and code", async () => {
    const worker = readWorkerOf(database.handle.db);
    if (!worker) throw new Error("a SQLite handle has a read worker");
    const failed = await worker.values({ sql: "SELECT * FROM no_such_table", params: [] }).catch((e) => e);
    expect(failed).toBeInstanceOf(Error);
    expect([failed.message, failed.code]).toEqual(["no such table: no_such_table", "SQLITE_ERROR"]);
    // The worker goes on after a failure.
    expect(await worker.values({ sql: "SELECT ?1 + 1", params: [41] })).toEqual([[42]]);
  });
});
