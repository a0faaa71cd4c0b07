import { sql } from "drizzle-orm";
import type { Database } from "#db";
import { retryWhileBusy } from "./busy";

// One SQLite connection serves the whole process, so transactions must not overlap: a second
// BEGIN on the same connection fails. This queue lets one transaction run at a time.
let sqliteQueue: Promise<unknown> = Promise.resolve();

/**
 * Runs `work` in one transaction and rolls it back if `work` throws.
 *
 * Drizzle's bun-sqlite `transaction()` does not roll back an async callback, so on SQLite this
 * issues BEGIN IMMEDIATE / COMMIT / ROLLBACK itself, waiting asynchronously (db/busy.ts) while
 * another process holds the write lock. On SQLite `work` must only touch the
 * database: any other I/O inside it would let other requests' queries run in the transaction.
 */
export async function withTransaction<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  if (db.dialect === "postgres") {
    return db.orm.transaction((tx) => work({ ...db, orm: tx as unknown as Database["orm"] }));
  }
  const run = sqliteQueue.then(() => runSqliteTransaction(db, work));
  sqliteQueue = run.catch(() => undefined);
  return run;
}

async function runSqliteTransaction<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  const orm = db.orm as unknown as { run(query: ReturnType<typeof sql>): unknown };
  // Another process may hold the write lock: wait for it without blocking the event loop.
  await retryWhileBusy(() => orm.run(sql`BEGIN IMMEDIATE`));
  try {
    const result = await work(db);
    orm.run(sql`COMMIT`);
    return result;
  } catch (error) {
    orm.run(sql`ROLLBACK`);
    throw error;
  }
}
