// A test database as an older release left it: migrated up to just before one migration, filled
// by the test with raw SQL, then migrated on to the end, so that the test can check what that
// migration (and every one after it) made of the old rows. SQLite or Postgres, as testDialect.
//
// The migration is named by its journal tag, not its index: migrations are renumbered when
// branches merge, and a tag may be given without its number ("batch-counts" for
// "0020_batch-counts") so that a renumbering leaves the test as it is.
import { Database as SqliteConnection } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { migrate as migratePostgres } from "drizzle-orm/bun-sql/migrator";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { migrate as migrateSqlite } from "drizzle-orm/bun-sqlite/migrator";
import { sqlitePathFromUrl } from "../../src/db/client";
import type { TestDatabase } from "./databases";

const drizzleRoot = new URL("../../drizzle/", import.meta.url).pathname;

/** A database migrated up to just before one migration (migrateUntil). */
export interface MigratedUntil {
  /** The tag of the last migration applied: the schema the test's raw SQL is written for. */
  lastTag: string;
  /** Runs one statement on the migrating connection (the schema the ORM knows is newer). */
  run(statement: string): Promise<void>;
  /** A timestamp column's SQL literal, as the dialect stores it. */
  timestamp(at: Date): string;
  /** A boolean column's SQL literal, as the dialect stores it. */
  boolean(value: boolean): string;
  /** Applies the migration named and all after it. */
  migrateToEnd(): Promise<void>;
}

/**
 * Migrates `database` (made with `createTestDatabase({ migrate: false })`) up to just before the
 * migration tagged `tag`; throws when no migration of the journal has that tag.
 */
export async function migrateUntil(database: TestDatabase, tag: string): Promise<MigratedUntil> {
  const sqlite = database.dialect === "sqlite";
  const migrations = join(drizzleRoot, sqlite ? "sqlite" : "pg");
  // The shortened copy serves only the first migrate: it goes again here, leaving the test none.
  const dir = mkdtempSync(join(tmpdir(), "bookdist-migrations-until-"));
  try {
    const { folder, lastTag } = migrationsUntil(migrations, tag, dir);
    // On SQLite the handle writes only through its door (db/transaction.ts): the migrations and
    // the old rows go through a connection of its own to the file. Postgres has no door: its pool
    // serves.
    const connection = sqlite ? new SqliteConnection(sqlitePathFromUrl(database.url)) : undefined;
    const sqliteOrm = connection && drizzleSqlite({ client: connection });
    const postgresOrm = database.handle.db.orm as unknown as BunSQLDatabase<Record<string, unknown>>;
    const migrate = async (migrationsFolder: string) => {
      if (sqliteOrm) migrateSqlite(sqliteOrm, { migrationsFolder });
      else await migratePostgres(postgresOrm, { migrationsFolder });
    };
    await migrate(folder);
    return {
      lastTag,
      async run(statement) {
        if (connection) connection.run(statement);
        else await postgresOrm.execute(sql.raw(statement));
      },
      timestamp: (at) => (sqlite ? String(at.getTime()) : `TIMESTAMPTZ '${at.toISOString()}'`),
      boolean: (value) => (sqlite ? (value ? "1" : "0") : String(value)),
      async migrateToEnd() {
        await migrate(migrations);
        connection?.close();
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A copy in `into` of the migrations folder whose journal stops before the migration `tag`. */
function migrationsUntil(migrations: string, tag: string, into: string): { folder: string; lastTag: string } {
  const folder = join(into, "migrations");
  cpSync(migrations, folder, { recursive: true });
  const journalPath = join(folder, "meta", "_journal.json");
  const journal: { entries: { tag: string }[] } = JSON.parse(readFileSync(journalPath, "utf8"));
  const until = journal.entries.findIndex(
    (entry) => entry.tag === tag || entry.tag.replace(/^\d+_/, "") === tag,
  );
  if (until === -1) {
    const tags = journal.entries.map((entry) => entry.tag).join(", ");
    throw new Error(
      `no migration tagged "${tag}" in ${join(migrations, "meta", "_journal.json")}: its tags are ${tags}`,
    );
  }
  if (until === 0) throw new Error(`"${tag}" is the first migration: nothing comes before it`);
  journal.entries = journal.entries.slice(0, until);
  writeFileSync(journalPath, JSON.stringify(journal));
  return { folder, lastTag: journal.entries[until - 1]!.tag };
}
