import { Database as SqliteConnection } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { SQL } from "bun";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import type { Database } from "#db";
import { type Logger, silentLogger } from "../lib/logger";
import { migratePostgres, migrateSqlite, SQLITE_BUSY_TIMEOUT_MS } from "./migration-lock";
import { ReadSnapshot, registerReadSnapshot } from "./read-snapshot";
import { ReadWorker, registerReadWorker } from "./read-worker";
import * as pgSchema from "./schema/pg";
import * as sqliteSchema from "./schema/sqlite";
import { registerSqliteDoor, SqliteDoor } from "./transaction";
import { WalIndex } from "./wal-index";
import { FALLBACK_CHECKPOINT_BYTES, WAL_BOUND_BYTES, WriterWorker } from "./writer-worker";

/**
 * The page cache of the worker's writer (KiB): a print run's transaction touches ~10,000 pages of
 * the code index at S3; with SQLite's default 2 MiB it spills them to the WAL mid-way and re-reads
 * them, twice as slow (1.2 s against 2.3–3.5 s on the 2-core VM).
 */
const WORKER_CACHE_KIB = 65_536;

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
  /** Where the SQLite door and read snapshot report what they cannot throw (transaction.ts). */
  logger?: Logger;
  /** Test mode for SQLite transactions that outlive their turn (SqliteDoorOptions). */
  strictTurns?: boolean;
  /**
   * Who checkpoints SQLite's WAL. "on-commit" (the CLIs, most tests): SQLite itself, in the COMMIT
   * that fills it past 1,000 pages. "worker" (the server): the writer worker (writer-worker.ts),
   * which also takes the long transactions (offLoopTransaction), so that no COMMIT on the event
   * loop pays for a checkpoint. "worker-thread": the handle the worker opens for itself.
   */
  checkpoints?: "on-commit" | "worker" | "worker-thread";
}

const DEFAULT_POOL_MAX = 10;

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

function openSqliteConnection(path: string): SqliteConnection {
  const connection = new SqliteConnection(path, { create: true, strict: true });
  connection.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  connection.exec("PRAGMA foreign_keys = ON");
  return connection;
}

/**
 * Two connections to the file: the writer, which only the door (transaction.ts) uses, and the
 * reader, a `query_only` connection behind `db.orm`, the handle everyone holds. A write made
 * outside the door therefore fails (SQLITE_READONLY) wherever it runs, and in WAL mode the reader
 * sees only committed rows: never those of a transaction still open on the writer.
 */
function openSqlite(path: string, options: OpenDatabaseOptions): DatabaseHandle {
  // An in-memory database opened twice is two databases: the reader would never see a write.
  if (path === ":memory:") throw new Error("SQLite needs a file (DATABASE_URL=sqlite:<path>), not :memory:");
  mkdirSync(dirname(path), { recursive: true });
  const logger = options.logger ?? silentLogger;
  const writer = openSqliteConnection(path);
  writer.exec("PRAGMA journal_mode = WAL");
  // WAL + NORMAL is durable against application crashes; only an OS crash may lose the last commits.
  writer.exec("PRAGMA synchronous = NORMAL");
  const checkpoints = options.checkpoints ?? "on-commit";
  if (checkpoints !== "on-commit") {
    // The worker copies the WAL; the server's writer checkpoints itself only once writes outran
    // it (writer-worker.ts), and the worker's own writer never (it empties the WAL after each of
    // its transactions). A WAL started over is cut back to its bound at the next commit.
    const pageSize = (writer.query("PRAGMA page_size").get() as { page_size: number }).page_size;
    const fallbackPages = checkpoints === "worker" ? Math.floor(FALLBACK_CHECKPOINT_BYTES / pageSize) : 0;
    writer.exec(`PRAGMA wal_autocheckpoint = ${fallbackPages}`);
    writer.exec(`PRAGMA journal_size_limit = ${WAL_BOUND_BYTES}`);
  }
  if (checkpoints === "worker-thread") writer.exec(`PRAGMA cache_size = -${WORKER_CACHE_KIB}`);
  const reader = openSqliteConnection(path);
  reader.exec("PRAGMA query_only = ON");
  const snapshot = new ReadSnapshot(reader, logger);
  const strictTurns = options.strictTurns ?? false;
  // The WAL's index, which the worker's door reads after each COMMIT (writer-worker.ts).
  const wal = checkpoints === "worker" ? new WalIndex(`${path}-shm`) : undefined;
  const worker = wal ? new WriterWorker(path, { strictTurns, logger, wal }) : undefined;
  const door = new SqliteDoor(writer, () => writerDb, { snapshot, strictTurns, logger, worker });
  const writerOrm = drizzleSqlite({
    client: writer,
    schema: sqliteSchema.tables,
    logger: {
      logQuery: (query: string) => {
        door.admit();
        options.onQuery?.(query);
      },
    },
  });
  const orm = drizzleSqlite({
    client: reader,
    schema: sqliteSchema.tables,
    logger: queryLogger(options.onQuery),
  });
  // The repositories are typed against whichever dialect "#db" resolves to; at run time these
  // handles carry the SQLite builder, which offers the same calls.
  const writerDb = { orm: writerOrm, tables: sqliteSchema.tables, dialect: "sqlite" } as unknown as Database;
  const db = { orm, tables: sqliteSchema.tables, dialect: "sqlite" } as unknown as Database;
  registerSqliteDoor(orm, door);
  registerSqliteDoor(writerOrm, door);
  registerReadSnapshot(orm, snapshot);
  // Started at its first read (read-worker.ts): most processes never make one.
  const readWorker = new ReadWorker(path);
  registerReadWorker(orm, readWorker);
  if (options.migrate) door.migrate(() => migrateSqlite(writerOrm, path));
  return {
    db,
    async ping() {
      reader.query("SELECT 1").get();
      // A transaction of ours in flight already holds the write lock (and a nested BEGIN fails).
      if (door.inTransaction) return;
      // Taking the write lock and giving it back proves a write could be made; it waits at
      // most the short busy timeout when another process holds the lock.
      writer.exec("BEGIN IMMEDIATE");
      writer.exec("ROLLBACK");
    },
    async close() {
      await worker?.close();
      readWorker.close();
      snapshot.endOrLog();
      reader.close();
      writer.close();
      // Last: closing a descriptor of the file gives up every lock this process holds on it.
      wal?.close();
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
