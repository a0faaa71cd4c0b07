// Upgrading a database whose guest orders an earlier version matched by billing e-mail (migration
// 0006 guest-claims): an order already given to an account stays with it, as an unproven binding
// that the key's holder takes over; waiting orders stay unclaimed; the stored e-mails are erased.
import { Database as SqliteConnection } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { asc, sql } from "drizzle-orm";
import { migrate as migratePostgres } from "drizzle-orm/bun-sql/migrator";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { migrate as migrateSqlite } from "drizzle-orm/bun-sqlite/migrator";
import { type DatabaseHandle, openDatabase } from "../../src/db/client";
import { bindGuestClaim } from "../../src/repositories/shop-orders";
import { testDialect } from "../helpers/databases";

const drizzleRoot = new URL("../../drizzle/", import.meta.url).pathname;
const folder = testDialect === "sqlite" ? "sqlite" : "pg";

/** A copy of the migrations folder that stops after 0005_shop-orders (the version that matched e-mails). */
function migrationsUpToShopOrders(dir: string): string {
  const target = join(dir, "migrations");
  cpSync(join(drizzleRoot, folder), target, { recursive: true });
  const journalPath = join(target, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  const last = journal.entries.findIndex((entry: { tag: string }) => entry.tag === "0005_shop-orders");
  expect(last).toBeGreaterThan(0);
  journal.entries = journal.entries.slice(0, last + 1);
  writeFileSync(journalPath, JSON.stringify(journal));
  return target;
}

describe(`migration to guest claims (${testDialect})`, () => {
  let dir: string;
  let handle: DatabaseHandle;
  /** As in qr-first-redeemed-migration.test.ts: on SQLite a connection of its own writes the old rows. */
  let writer: unknown;
  let dropDatabase = async () => {};
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bookdist-migration-"));
    const serverUrl = process.env.TEST_DATABASE_URL;
    if (!serverUrl) {
      handle = await openDatabase(`sqlite:${join(dir, "old.sqlite")}`);
      writer = drizzleSqlite({ client: new SqliteConnection(join(dir, "old.sqlite")) });
      return;
    }
    const name = `bookdist_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const admin = new SQL(serverUrl);
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    handle = await openDatabase(url.toString());
    writer = handle.db.orm;
    dropDatabase = async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    };
  });
  afterAll(async () => {
    await handle.close();
    await dropDatabase();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (statement: string) => {
    const orm = writer as { run(q: unknown): unknown; execute(q: unknown): Promise<unknown> };
    if (testDialect === "sqlite") orm.run(sql.raw(statement));
    else await orm.execute(sql.raw(statement));
  };
  const yes = testDialect === "sqlite" ? "1" : "true";
  const no = testDialect === "sqlite" ? "0" : "false";

  test("e-mail bindings kept as unproven, waiting orders unclaimed, e-mails erased; the key takes over", async () => {
    const migrate = (migrationsFolder: string) =>
      testDialect === "sqlite"
        ? migrateSqlite(writer as never, { migrationsFolder })
        : migratePostgres(writer as never, { migrationsFolder });
    await migrate(migrationsUpToShopOrders(dir));
    const matched = "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91";
    const customer = "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    const order = (id: number, email: string | null, user: string | null, awaiting: string) =>
      run(`INSERT INTO shop_order (order_id, status, paid, user_uuid, billing_email, awaiting_account)
           VALUES (${id}, 'wc-completed', ${yes}, ${user ? `'${user}'` : "NULL"},
                   ${email ? `'${email}'` : "NULL"}, ${awaiting})`);
    await order(1, "bought@example.com", matched, no); // a guest order matched by e-mail
    await order(2, "waiting@example.com", null, yes); // a guest order waiting for an account
    await order(3, null, customer, no); // a customer's order

    await migrate(join(drizzleRoot, folder));

    const { shopOrder: o } = handle.db.tables;
    const rows = await handle.db.orm.select().from(o).orderBy(asc(o.orderId));
    expect(
      rows.map((row) => [
        row.orderId,
        row.guestClaimUuid,
        row.guestClaimedAt,
        row.billingEmail,
        row.awaitingAccount,
      ]),
    ).toEqual([
      [1, matched, null, null, false],
      [2, null, null, null, false],
      [3, null, null, null, false],
    ]);
    // The key's holder takes over the unproven binding; after that, the order is theirs for good.
    const buyer = "0b9c8d7e-6f5a-4b3c-9d2e-1f0a9b8c7d6e";
    const now = new Date("2026-11-28T12:00:00.000Z");
    expect(await bindGuestClaim(handle.db, 1, buyer, now)).toBe(buyer);
    expect(await bindGuestClaim(handle.db, 1, matched, now)).toBe(buyer);
  });
});
