// Migrations under a database-wide lock, so that any number of instances (or `bun run db:migrate`
// beside running ones) may start at once on an empty or an older database: one applies each
// pending migration, the others wait, then find nothing left to do. Drizzle's migrator itself
// takes no lock; it is used as documented, inside the lock.
import { Database as SqliteConnection } from "bun:sqlite";
import { SQL } from "bun";
import { sql } from "drizzle-orm";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { migrate as migratePostgresSchema } from "drizzle-orm/bun-sql/migrator";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrate as migrateSqliteSchema } from "drizzle-orm/bun-sqlite/migrator";
import { hashRawSessionIdsPostgres, hashRawSessionIdsSqlite } from "./session-id-migration";

const migrationsRoot = new URL("../../drizzle/", import.meta.url).pathname;

/** How long an instance waits for another one's migrations before giving up on start-up. */
const MIGRATION_LOCK_WAIT_MS = 10 * 60 * 1000;

/**
 * Postgres: a session-level advisory lock, held on one dedicated connection (a pool would run
 * the lock, the migrations and the unlock on different sessions). Closing the connection
 * releases the lock, also when this process dies half-way.
 */
export async function migratePostgres(url: string, migrationsFolder = `${migrationsRoot}pg`): Promise<void> {
  const connection = new SQL(url, { max: 1, connectionTimeout: 10 });
  try {
    await connection`SELECT set_config('lock_timeout', ${`${MIGRATION_LOCK_WAIT_MS}ms`}, false)`;
    await connection`SELECT pg_advisory_lock(hashtext('bookdist:migrations'))`;
    await migratePostgresSchema(drizzleBunSql({ client: connection }), { migrationsFolder });
    await hashRawSessionIdsPostgres(connection);
    await connection`SELECT pg_advisory_unlock(hashtext('bookdist:migrations'))`;
  } finally {
    await connection.close({ timeout: 5 });
  }
}

/**
 * SQLite: an exclusive transaction on a lock file beside the database. Drizzle's migrator opens
 * its own transaction on the database connection, so the lock cannot be a transaction there;
 * a second file that only ever holds this lock is the same mutex, across processes. Start-up is
 * not serving yet, so waiting synchronously for the lock is fine.
 */
export function migrateSqlite(
  orm: BunSQLiteDatabase<Record<string, unknown>>,
  databasePath: string,
  migrationsFolder = `${migrationsRoot}sqlite`,
): void {
  const lock = new SqliteConnection(`${databasePath}.migration-lock`, { create: true });
  try {
    lock.exec(`PRAGMA busy_timeout = ${MIGRATION_LOCK_WAIT_MS}`);
    lock.exec("BEGIN EXCLUSIVE");
    // The database's own busy timeout is kept short for serving; a running instance's write
    // may still hold it for a moment while migrations run.
    orm.run(sql`PRAGMA busy_timeout = 5000`);
    try {
      migrateSqliteSchema(orm, { migrationsFolder });
      hashRawSessionIdsSqlite(orm);
    } finally {
      orm.run(sql.raw(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`));
      lock.exec("ROLLBACK");
    }
  } finally {
    lock.close();
  }
}

/**
 * How long one SQLite statement may wait for another process's lock. It blocks the event loop
 * while it waits, so it stays short; writers retry asynchronously instead (see db/busy.ts).
 */
export const SQLITE_BUSY_TIMEOUT_MS = 20;
