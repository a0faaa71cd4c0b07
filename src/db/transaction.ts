import type { Database } from "#db";
import { retryWhileBusy } from "./busy";
import { readSnapshotOf } from "./read-snapshot";

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

/** The handles `withTransaction` gives its work on SQLite, while their transaction is open. */
const openSqliteTransactions = new WeakSet<Database>();

/**
 * One write statement. Inside a transaction (`db` is the handle `withTransaction` gave) it simply
 * runs. Outside one, on SQLite, it queues with the transactions as a transaction of its own: issued
 * while another request's transaction is open on the process's one connection, it would join that
 * transaction and be undone by its rollback (a logout undone, a new session lost), and its BEGIN
 * waits for another process's lock asynchronously (db/busy.ts) instead of failing after the short
 * busy timeout. On Postgres each statement has a connection of its own: it runs as it is.
 */
export function queuedWrite<T>(db: Database, write: () => Promise<T>): Promise<T> {
  if (db.dialect !== "sqlite" || openSqliteTransactions.has(db)) return write();
  return withTransaction(db, write);
}

interface SqliteStatement {
  run(): unknown;
}
interface SqliteClient {
  prepare(sql: string): SqliteStatement;
  readonly inTransaction: boolean;
}
interface TransactionStatements {
  /** Whether the connection is still in a transaction (SQLite may have ended it on an error). */
  open(): boolean;
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
  const client = (db.orm as unknown as { $client: SqliteClient }).$client;
  let statements = transactionStatements.get(client);
  if (statements === undefined) {
    statements = {
      open: () => client.inTransaction,
      begin: client.prepare("BEGIN IMMEDIATE"),
      commit: client.prepare("COMMIT"),
      rollback: client.prepare("ROLLBACK"),
    };
    transactionStatements.set(client, statements);
  }
  return statements;
}

async function runSqliteTransaction<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  const { open, begin, commit, rollback } = statementsOf(db);
  const snapshot = readSnapshotOf(db);
  // Another process may hold the write lock: wait for it without blocking the event loop. The
  // turn's read snapshot (read-snapshot.ts) ends first, on every try, since reads made while we
  // wait may begin another.
  await retryWhileBusy(() => {
    snapshot?.end();
    begin.run();
  });
  // A handle of its own, so that writes made through it know they are inside (queuedWrite).
  const tx = { ...db };
  openSqliteTransactions.add(tx);
  try {
    const result = await work(tx);
    commit.run();
    return result;
  } catch (error) {
    // A COMMIT that failed for a full disk (SQLITE_FULL) has already rolled back: a ROLLBACK then
    // would fail too and hide the error that says why.
    if (open()) rollback.run();
    throw error;
  } finally {
    openSqliteTransactions.delete(tx);
  }
}
