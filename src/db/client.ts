import { Database as SqliteConnection } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { SQL } from "bun";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import type { Database } from "#db";
import { migratePostgres, migrateSqlite, SQLITE_BUSY_TIMEOUT_MS } from "./migration-lock";
import { ReadSnapshot, registerReadSnapshot } from "./read-snapshot";
import * as pgSchema from "./schema/pg";
import * as sqliteSchema from "./schema/sqlite";

export interface DatabaseHandle {
  db: Database;
  /**
   * For /health: throws when the database cannot be reached or cannot be written (another
   * process holds SQLite's write lock, a read-only Postgres).
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Applies pending migrations before returning (start-up and `db:migrate` do). */
  migrate?: boolean;
  /** Observes every SQL statement (tests count queries with it). */
  onQuery?: (query: string) => void;
  /** Postgres connections this process may open (DATABASE_POOL_MAX). */
  poolMax?: number;
}

export const DEFAULT_POOL_MAX = 10;

export function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

export function sqlitePathFromUrl(url: string): string {
  const path = url.replace(/^sqlite:(\/\/)?/, "");
  if (path === "") throw new Error("DATABASE_URL names no SQLite file");
  return path;
}

export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<DatabaseHandle> {
  return isPostgresUrl(url) ? openPostgres(url, options) : openSqlite(sqlitePathFromUrl(url), options);
}

function queryLogger(onQuery: OpenDatabaseOptions["onQuery"]) {
  return onQuery ? { logQuery: (query: string) => onQuery(query) } : undefined;
}

/** Drizzle's query hook on SQLite: a write ends the turn's read snapshot before it runs. */
function sqliteQueryHook(snapshot: ReadSnapshot, onQuery: OpenDatabaseOptions["onQuery"]) {
  return {
    logQuery: (query: string) => {
      snapshot.beforeStatement(query);
      onQuery?.(query);
    },
  };
}

function openSqlite(path: string, options: OpenDatabaseOptions): DatabaseHandle {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const connection = new SqliteConnection(path, { create: true, strict: true });
  connection.exec("PRAGMA journal_mode = WAL");
  connection.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  connection.exec("PRAGMA foreign_keys = ON");
  // WAL + NORMAL is durable against application crashes; only an OS crash may lose the last commits.
  connection.exec("PRAGMA synchronous = NORMAL");
  const snapshot = new ReadSnapshot(connection);
  const orm = drizzleSqlite({
    client: connection,
    schema: sqliteSchema.tables,
    logger: sqliteQueryHook(snapshot, options.onQuery),
  });
  registerReadSnapshot(orm, snapshot);
  if (options.migrate) migrateSqlite(orm, path);
  // The repositories are typed against whichever dialect "#db" resolves to; at run time this
  // handle carries the SQLite builder, which offers the same calls.
  const db = { orm, tables: sqliteSchema.tables, dialect: "sqlite" } as unknown as Database;
  return {
    db,
    async ping() {
      // The turn's read snapshot would pass for a transaction of ours below.
      snapshot.end();
      connection.query("SELECT 1").get();
      // A transaction of ours in flight already holds the write lock (and a nested BEGIN fails).
      if (connection.inTransaction) return;
      // Taking the write lock and giving it back proves a write could be made; it waits at
      // most the short busy timeout when another process holds the lock.
      connection.exec("BEGIN IMMEDIATE");
      connection.exec("ROLLBACK");
    },
    async close() {
      snapshot.end();
      connection.close();
    },
  };
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (options.migrate) await migratePostgres(url);
  const max = options.poolMax ?? DEFAULT_POOL_MAX;
  const client = new SQL(url, { max, idleTimeout: 30, connectionTimeout: 5 });
  const orm = drizzleBunSql({ client, schema: pgSchema.tables, logger: queryLogger(options.onQuery) });
  const db = { orm, tables: pgSchema.tables, dialect: "postgres" } as unknown as Database;
  return {
    db,
    async ping() {
      // A standby (or a database switched to read-only) answers reads but takes no write.
      const [row] = await client`SELECT current_setting('transaction_read_only') AS read_only`;
      if (row?.read_only !== "off") throw new Error("database is read-only");
    },
    async close() {
      await client.close({ timeout: 5 });
    },
  };
}
