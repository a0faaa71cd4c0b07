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

/**
 * One write made outside any transaction. On SQLite it queues with the transactions: issued while
 * another request's transaction is open on the process's one connection, it would join that
 * transaction and be undone by its rollback (a logout undone, a new session or a failure count
 * lost). On Postgres each statement has a connection of its own: it runs as it is. Never call it
 * from inside `withTransaction` (on SQLite it would wait for itself).
 */
export function writeOutsideTransaction<T>(db: Database, write: (db: Database) => Promise<T>): Promise<T> {
  return db.dialect === "sqlite" ? withTransaction(db, write) : write(db);
}

interface SqliteStatement {
  run(): unknown;
}
interface TransactionStatements {
  begin: SqliteStatement;
  commit: SqliteStatement;
  rollback: SqliteStatement;
}

/**
 * BEGIN / COMMIT / ROLLBACK prepared once per connection: built through Drizzle's `sql`, each
 * would be rendered and prepared again on every transaction (a redemption runs one).
 */
const transactionStatements = new WeakMap<object, TransactionStatements>();

function statementsOf(db: Database): TransactionStatements {
  const client = (db.orm as unknown as { $client: { prepare(sql: string): SqliteStatement } }).$client;
  let statements = transactionStatements.get(client);
  if (statements === undefined) {
    statements = {
      begin: client.prepare("BEGIN IMMEDIATE"),
      commit: client.prepare("COMMIT"),
      rollback: client.prepare("ROLLBACK"),
    };
    transactionStatements.set(client, statements);
  }
  return statements;
}

async function runSqliteTransaction<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  const { begin, commit, rollback } = statementsOf(db);
  // Another process may hold the write lock: wait for it without blocking the event loop.
  await retryWhileBusy(() => begin.run());
  try {
    const result = await work(db);
    commit.run();
    return result;
  } catch (error) {
    rollback.run();
    throw error;
  }
}
