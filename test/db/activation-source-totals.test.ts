// An activation's source (a code, else a shop order, else by hand: GET /activation?source=) can
// change after it was made, and the running totals by source (daily_count's day "" rows, which the
// dashboard shows and GET /activation?source= counts from) must follow: migration 0021's triggers
// on a code redeemed on a shop order's activation, the order's refund detaching it, and its code
// deleted by hand; and the migration counts the totals of a database filled before it once.
// SQLite or Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { withTransaction } from "../../src/db/transaction";
import { deleteShopActivation, insertShopActivation } from "../../src/repositories/activations";
import { activationsOfSource } from "../../src/repositories/daily-counts";
import { dashboardFigures } from "../../src/services/dashboard";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { migrateUntil } from "../helpers/migrations-until";
import { createTestApp, type TestApp } from "../helpers/test-app";

const SOURCES = ["code", "order", "manual"] as const;
type Totals = Record<(typeof SOURCES)[number], number>;

describe(`activation totals by source follow a change of source (${testDialect})`, () => {
  let t: TestApp;
  let admin: { token: string };
  const json = async (method: string, path: string, body?: unknown, token = admin.token) => {
    const response = await t.call(method, path, { token, json: body });
    expect([method, path, response.status]).toEqual([
      method,
      path,
      response.status < 300 ? response.status : 0,
    ]);
    return (await response.json()) as { id: number; code: string };
  };

  /** Each source's count as the list reads it (its rows), as /count and the dashboard answer it. */
  const totals = async () => {
    const listed: Partial<Totals> = {};
    const counted: Partial<Totals> = {};
    for (const source of SOURCES) {
      const list = await t.call("GET", `/activation?source=${source}&size=100&page=0`, {
        token: admin.token,
      });
      listed[source] = ((await list.json()) as unknown[]).length;
      counted[source] = Number(
        await (await t.call("GET", `/activation/count?source=${source}`, { token: admin.token })).text(),
      );
      expect(list.headers.get("X-Total-Count")).toBe(String(counted[source]));
    }
    const shown = (await dashboardFigures(t.deps.db, t.clock.now(), 30)).activationsBySource;
    expect([counted, shown]).toEqual([listed, listed]);
    return listed;
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
  });
  afterAll(() => t?.close());

  test("a code on a shop order's activation, the refund, the code deleted by hand, a revocation", async () => {
    const reader = await t.user();
    const other = await t.user();
    const bookA = (await json("POST", "/book", { title: "A" })).id;
    const bookB = (await json("POST", "/book", { title: "B" })).id;
    const codeA = await json("POST", "/activation-qr-code", { bookId: bookA });
    const codeB = await json("POST", "/activation-qr-code", { bookId: bookB });
    await json("POST", "/activation/by-qr-code", { code: codeA.code }, reader.token);
    const manual = await json("POST", "/activation", { bookId: bookA, userUuid: other.uuid });
    const shop = await withTransaction(t.deps.db, (tx) =>
      insertShopActivation(tx, { bookId: bookB, userUuid: reader.uuid, shopOrderId: 727 }, t.clock.now()),
    );
    expect(await totals()).toEqual({ code: 1, order: 1, manual: 1 });

    // The reader redeems a printed code of the book the order gave them: it is recorded on it.
    const redeemed = await t.call("POST", "/activation/by-qr-code", {
      token: reader.token,
      json: { code: codeB.code },
    });
    expect(((await redeemed.json()) as { id: number }).id).toBe(shop!.id);
    expect(await totals()).toEqual({ code: 2, order: 0, manual: 1 });

    // The order is refunded: the activation stays, on its code alone.
    const refund = await withTransaction(t.deps.db, (tx) =>
      deleteShopActivation(tx, shop!.id, 727, t.clock.now()),
    );
    expect(refund).toBe("detached");
    expect(await totals()).toEqual({ code: 2, order: 0, manual: 1 });

    // Its code deleted in the database by hand: the foreign key sets qr_code_id null.
    const { activationQrCode } = t.deps.db.tables;
    await withTransaction(t.deps.db, (tx) =>
      tx.orm.delete(activationQrCode).where(eq(activationQrCode.id, codeB.id)),
    );
    expect(await totals()).toEqual({ code: 1, order: 0, manual: 2 });

    await json("DELETE", `/activation/${manual.id}`);
    expect(await totals()).toEqual({ code: 1, order: 0, manual: 1 });
  });
});

describe(`migration 0021 counts the totals by source again (${testDialect})`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database.drop());

  test("an activation of a code and a shop order, counted by 0017 as the order's, is the code's", async () => {
    const { db } = database.handle;
    const old = await migrateUntil(database, "activation-source-totals");
    expect(old.lastTag).toBe("0020_batch-counts");
    const at = old.timestamp(new Date("2026-11-21T10:00:00.000Z"));
    await old.run(
      `INSERT INTO book (id, title, language, created_at, updated_at) VALUES (1, 'A', 'en', ${at}, ${at})`,
    );
    await old.run(`INSERT INTO activation_qr_code (id, book_id, code, enabled, max_activations, activation_count,
                     created_at, updated_at)
                   VALUES (1, 1, 'AAAA-BBBB-CCCC-DDDD', ${old.boolean(true)}, 1, 1, ${at}, ${at})`);
    // As 0017's triggers saw them: a shop order's activation (then the code was recorded on it),
    // one by code, one by hand.
    await old.run(`INSERT INTO activation (id, book_id, user_uuid, shop_order_id, created_at, updated_at)
                   VALUES (1, 1, 'u1', 727, ${at}, ${at})`);
    await old.run("UPDATE activation SET qr_code_id = 1 WHERE id = 1");
    await old.run(`INSERT INTO activation (id, book_id, user_uuid, qr_code_id, created_at, updated_at)
                   VALUES (2, 1, 'u2', 1, ${at}, ${at})`);
    await old.run(`INSERT INTO activation (id, book_id, user_uuid, created_at, updated_at)
                   VALUES (3, 1, 'u3', ${at}, ${at})`);
    await old.migrateToEnd();
    const after: Partial<Totals> = {};
    for (const source of SOURCES) after[source] = await activationsOfSource(db, source);
    expect(after).toEqual({ code: 2, order: 0, manual: 1 });
  });
});
