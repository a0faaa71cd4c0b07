// Upgrading a database made before activation_qr_code.first_redeemed_at existed: codes redeemed
// back then must not turn up among a book's never-redeemed codes (null-activations).

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
import { listQrCodes } from "../../src/repositories/qr-codes";
import { testDialect } from "../helpers/databases";

const drizzleRoot = new URL("../../drizzle/", import.meta.url).pathname;
const folder = testDialect === "sqlite" ? "sqlite" : "pg";

/** A copy of the migrations folder that stops after the first (init) migration. */
function initOnlyMigrations(dir: string): string {
  const target = join(dir, "migrations");
  cpSync(join(drizzleRoot, folder), target, { recursive: true });
  const journalPath = join(target, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8"));
  journal.entries = journal.entries.slice(0, 1);
  expect(journal.entries[0].tag).toBe("0000_init");
  writeFileSync(journalPath, JSON.stringify(journal));
  return target;
}

describe(`migration to first_redeemed_at (${testDialect})`, () => {
  let dir: string;
  let handle: DatabaseHandle;
  /**
   * What migrates and writes the old rows: the handle's own builder on Postgres; on SQLite, whose
   * handle writes only through its door (db/transaction.ts), a connection of its own to the file.
   */
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

  /** Raw statements: the rows are written in the old schema, which the query builder no longer knows. */
  const run = async (statement: string) => {
    const orm = writer as {
      run(q: unknown): unknown;
      execute(q: unknown): Promise<unknown>;
    };
    if (testDialect === "sqlite") orm.run(sql.raw(statement));
    else await orm.execute(sql.raw(statement));
  };
  const at = (iso: string) => (testDialect === "sqlite" ? String(Date.parse(iso)) : `TIMESTAMPTZ '${iso}'`);
  const yes = testDialect === "sqlite" ? "1" : "true";

  test("codes redeemed before the upgrade keep out of null-activations; never-redeemed ones stay in", async () => {
    const migrate = (migrationsFolder: string) =>
      testDialect === "sqlite"
        ? migrateSqlite(writer as never, { migrationsFolder })
        : migratePostgres(writer as never, { migrationsFolder });
    await migrate(initOnlyMigrations(dir));
    const created = at("2026-01-01T00:00:00.000Z");
    await run(
      `INSERT INTO book (id, title, created_at, updated_at) VALUES (1, 'Old', ${created}, ${created})`,
    );
    const code = (id: number, count: number, updated: string) =>
      run(`INSERT INTO activation_qr_code (id, book_id, code, enabled, max_activations, activation_count, created_at, updated_at)
           VALUES (${id}, 1, 'CODE-${id}', ${yes}, 5, ${count}, ${created}, ${at(updated)})`);
    await code(1, 1, "2026-03-01T00:00:00.000Z"); // redeemed, its activation still there
    await code(2, 0, "2026-01-01T00:00:00.000Z"); // never redeemed
    await code(3, 1, "2026-04-01T00:00:00.000Z"); // counts one, but no activation points at it
    await run(`INSERT INTO activation (book_id, user_uuid, qr_code_id, created_at, updated_at)
               VALUES (1, '3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91', 1, ${at("2026-02-01T00:00:00.000Z")}, ${created})`);

    await migrate(join(drizzleRoot, folder));

    const { activationQrCode: q } = handle.db.tables;
    const rows = await handle.db.orm.select().from(q).orderBy(asc(q.id));
    expect(rows.map((row) => [row.id, row.firstRedeemedAt?.toISOString() ?? null])).toEqual([
      [1, "2026-02-01T00:00:00.000Z"],
      [2, null],
      [3, "2026-04-01T00:00:00.000Z"],
    ]);
    const unused = await listQrCodes(handle.db, { bookId: 1, unused: true });
    expect(unused.map((row) => row.id)).toEqual([2]);
  });
});
