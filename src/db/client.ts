import { Database as SqliteConnection } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { SQL } from "bun";
import { sql } from "drizzle-orm";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { migrate as migratePostgres } from "drizzle-orm/bun-sql/migrator";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { migrate as migrateSqlite } from "drizzle-orm/bun-sqlite/migrator";
import type { Database } from "#db";
import * as pgSchema from "./schema/pg";
import * as sqliteSchema from "./schema/sqlite";

const migrationsRoot = new URL("../../drizzle/", import.meta.url).pathname;

export interface DatabaseHandle {
  db: Database;
  /** Cheap round trip for /health; throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Applies pending migrations before returning (start-up and `db:migrate` do). */
  migrate?: boolean;
  /** Observes every SQL statement (tests count queries with it). */
  onQuery?: (query: string) => void;
}

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

function openSqlite(path: string, options: OpenDatabaseOptions): DatabaseHandle {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const connection = new SqliteConnection(path, { create: true, strict: true });
  connection.exec("PRAGMA journal_mode = WAL");
  connection.exec("PRAGMA busy_timeout = 5000");
  connection.exec("PRAGMA foreign_keys = ON");
  // WAL + NORMAL is durable against application crashes; only an OS crash may lose the last commits.
  connection.exec("PRAGMA synchronous = NORMAL");
  const orm = drizzleSqlite({
    client: connection,
    schema: sqliteSchema.tables,
    logger: queryLogger(options.onQuery),
  });
  if (options.migrate) migrateSqlite(orm, { migrationsFolder: `${migrationsRoot}sqlite` });
  // The repositories are typed against whichever dialect "#db" resolves to; at run time this
  // handle carries the SQLite builder, which offers the same calls.
  const db = { orm, tables: sqliteSchema.tables, dialect: "sqlite" } as unknown as Database;
  return {
    db,
    async ping() {
      connection.query("SELECT 1").get();
    },
    async close() {
      connection.close();
    },
  };
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const client = new SQL(url, { max: 20, idleTimeout: 30, connectionTimeout: 5 });
  const orm = drizzleBunSql({ client, schema: pgSchema.tables, logger: queryLogger(options.onQuery) });
  if (options.migrate) await migratePostgres(orm, { migrationsFolder: `${migrationsRoot}pg` });
  const db = { orm, tables: pgSchema.tables, dialect: "postgres" } as unknown as Database;
  return {
    db,
    async ping() {
      await orm.execute(sql`SELECT 1`);
    },
    async close() {
      await client.close({ timeout: 5 });
    },
  };
}
