// The one door for writes. On SQLite the handle everyone holds reads through a connection that
// takes no write (client.ts); writes go through this door alone, on a second connection, one
// transaction at a time: withTransaction for several statements, queuedWrite for one. A write
// made anywhere else fails (SQLITE_READONLY on the reader, the writer's query hook below), in
// production as in tests. On Postgres each transaction takes a pooled connection of its own.
import type { Database as SqliteConnection, Statement } from "bun:sqlite";
import type { Database } from "#db";
import type { Logger } from "../lib/logger";
import { retryWhileBusy } from "./busy";
import type { ReadSnapshot } from "./read-snapshot";
import type { WriterWorker } from "./writer-worker";

/**
 * Runs `work` in one transaction and rolls it back if `work` throws; `work` gets the
 * transaction's handle and must make every statement of the transaction through it.
 *
 * Drizzle's bun-sqlite `transaction()` does not roll back an async callback, so on SQLite this
 * issues BEGIN IMMEDIATE / COMMIT / ROLLBACK itself, waiting asynchronously (db/busy.ts) while
 * another process holds the write lock. On SQLite `work` must only touch the database: the
 * transaction must end in the event-loop turn it began in (SqliteDoor), since it holds the write
 * lock and every other write of the process waits behind it.
 */
export async function withTransaction<T>(db: Database, work: (tx: Database) => Promise<T>): Promise<T> {
  if (db.dialect === "postgres") {
    return db.orm.transaction((tx) => work({ ...db, orm: tx as unknown as Database["orm"] }));
  }
  // SQLite has no nested BEGIN, and the queue would wait for the transaction that is waiting.
  if (openSqliteTransactions.has(db)) throw new Error("withTransaction was given a transaction's handle");
  return sqliteDoorOf(db).enter(work);
}

/**
 * One write statement (or a few that need no transaction of their own). Inside a transaction (`db`
 * is the handle `withTransaction` gave) it simply runs on that handle. Outside one, on SQLite, it
 * queues as a transaction of its own, so that its BEGIN waits for another process's lock
 * asynchronously (db/busy.ts) instead of failing after the short busy timeout. On Postgres each
 * statement has a connection of its own: it runs as it is.
 */
export function queuedWrite<T>(db: Database, write: (tx: Database) => Promise<T>): Promise<T> {
  if (db.dialect !== "sqlite" || openSqliteTransactions.has(db)) return write(db);
  return withTransaction(db, write);
}

/**
 * A transaction too long for the event loop (a print run's 10,000 codes): `work`, an export of
 * `module` (pass the caller's `import.meta.url`), takes the transaction's handle and `args`, and
 * does database work only. On a SQLite server it runs on the writer worker (writer-worker.ts): the
 * door queues it like any other transaction, so the process's writes still go one at a time, but
 * the loop keeps serving while it runs; `args` and the result cross to the thread and back as
 * structured clones. Elsewhere (Postgres, whose driver never holds the loop, or a handle without
 * the worker: the CLIs, most tests) it is withTransaction.
 */
export function offLoopTransaction<A extends unknown[], T>(
  db: Database,
  module: string,
  work: (tx: Database, ...args: A) => Promise<T>,
  ...args: A
): Promise<T> {
  if (db.dialect === "sqlite" && !openSqliteTransactions.has(db)) {
    const door = sqliteDoorOf(db);
    const worker = door.worker;
    if (worker) return door.enterElsewhere(() => worker.transaction<T>(module, work.name, args));
  }
  return withTransaction(db, (tx) => work(tx, ...args));
}

/** A transaction of the door (SQLite) was still open when the event loop came round again. */
export class TransactionOutlivedTurnError extends Error {
  constructor() {
    super(
      "a SQLite transaction outlived the event-loop turn in which it began: it awaited something " +
        "other than the database (move that I/O out of withTransaction/queuedWrite)",
    );
    this.name = "TransactionOutlivedTurnError";
  }
}

/** The handles the door gives its work, while their transaction is open. */
const openSqliteTransactions = new WeakSet<Database>();

export interface SqliteDoorOptions {
  /** The reader's snapshot: ended after each commit, so that reads after a write see it. */
  snapshot: ReadSnapshot;
  /**
   * What a transaction that outlives its turn gets. true (test mode: test/helpers/databases.ts
   * sets it for every test database): it is rolled back and fails with
   * TransactionOutlivedTurnError, so a test finds the code path. false (the server, the CLIs):
   * one error line is logged, without its SQL, and it commits as it would have.
   */
  strictTurns: boolean;
  logger: Logger;
  /** The writer worker, when this process has one (offLoopTransaction). */
  worker?: WriterWorker;
}

/**
 * The writer connection and the queue in front of it. Every transaction ends in the turn it began
 * in: work that awaits anything but the database would hold the write lock, and every other write
 * of the process, for as long as that takes. A check scheduled at BEGIN (setImmediate runs once
 * the turn's promise callbacks have drained) finds such a transaction still open.
 */
export class SqliteDoor {
  private queue: Promise<unknown> = Promise.resolve();
  /** Whether a transaction of the door (or the migrations) holds the writer. */
  private holding = false;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;

  constructor(
    private readonly connection: SqliteConnection,
    /** The handle of the writer connection: its `orm` is built with `admit` as its query hook. */
    private readonly writer: () => Database,
    private readonly options: SqliteDoorOptions,
  ) {
    // Prepared once: built through Drizzle's `sql`, each would be rendered and prepared again on
    // every transaction (a redemption runs one).
    this.begin = connection.prepare("BEGIN IMMEDIATE");
    this.commit = connection.prepare("COMMIT");
    this.rollback = connection.prepare("ROLLBACK");
  }

  /** Drizzle's query hook on the writer: a statement there outside the door is refused. */
  admit(): void {
    if (!this.holding)
      throw new Error("a statement on the SQLite writer outside withTransaction/queuedWrite");
  }

  /** Whether the door's turn is given to the writer worker's transaction. */
  private elsewhere = false;

  /** Whether a transaction of the door is open (it then holds the write lock), here or on the worker. */
  get inTransaction(): boolean {
    return this.holding || this.elsewhere;
  }

  get worker(): WriterWorker | undefined {
    return this.options.worker;
  }

  /**
   * Queues work that the writer worker does with the write lock (offLoopTransaction, or emptying
   * a WAL that a steady stream of writes never let it start over).
   */
  enterElsewhere<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      this.elsewhere = true;
      try {
        return await work();
      } finally {
        this.elsewhere = false;
        // It committed on another connection: the reads after it must see it.
        this.options.snapshot.endOrLog();
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * A WAL that a steady stream of writes never let the writer worker start over (writer-worker.ts):
   * the worker empties it in a turn of the door queued now, so the writes that arrive meanwhile
   * wait for it (off the loop) and the file stays bounded however fast they come.
   */
  private emptyWalIfFull(): void {
    const worker = this.options.worker;
    if (!worker?.walFull()) return;
    this.enterElsewhere(() => worker.empty()).catch((error: unknown) =>
      this.options.logger.error("the WAL could not be emptied", {
        alarm: "checkpoint",
        error: String(error),
      }),
    );
  }

  /** Runs the migrations (synchronous, at start-up) on the writer. */
  migrate(run: () => void): void {
    this.holding = true;
    try {
      run();
    } finally {
      this.holding = false;
    }
  }

  enter<T>(work: (tx: Database) => Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.transaction(work));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async transaction<T>(work: (tx: Database) => Promise<T>): Promise<T> {
    // Another process may hold the write lock: wait for it without blocking the event loop.
    await retryWhileBusy(() => this.begin.run());
    this.holding = true;
    const turn = { open: true, outlived: false };
    setImmediate(() => {
      if (!turn.open) return;
      turn.outlived = true;
      if (!this.options.strictTurns)
        this.options.logger.error("a SQLite transaction outlived its event-loop turn", {
          alarm: "transaction",
        });
    });
    // A handle of its own, so that writes made through it know they are inside (queuedWrite).
    const tx = { ...this.writer() };
    openSqliteTransactions.add(tx);
    try {
      const result = await work(tx);
      if (turn.outlived && this.options.strictTurns) throw new TransactionOutlivedTurnError();
      // The reader's snapshot ends first: the reads after the write must see it, and a read
      // transaction still open at COMMIT would pin the WAL, whose checkpoint then could never
      // start it over (it grew without bound under load, every statement slower: 4 ms a redemption).
      this.options.snapshot.endOrLog();
      this.commit.run();
      this.emptyWalIfFull();
      return result;
    } catch (error) {
      // A COMMIT that failed for a full disk (SQLITE_FULL) has already rolled back: a ROLLBACK then
      // would fail too and hide the error that says why.
      if (this.connection.inTransaction) this.rollback.run();
      if (turn.outlived && this.options.strictTurns && !(error instanceof TransactionOutlivedTurnError))
        throw new TransactionOutlivedTurnError();
      throw error;
    } finally {
      turn.open = false;
      this.holding = false;
      openSqliteTransactions.delete(tx);
    }
  }
}

/** The door of each SQLite handle, keyed by its reader's Drizzle instance and its writer's. */
const doors = new WeakMap<object, SqliteDoor>();

export function registerSqliteDoor(orm: object, door: SqliteDoor): void {
  doors.set(orm, door);
}

function sqliteDoorOf(db: Database): SqliteDoor {
  const door = doors.get(db.orm);
  if (door === undefined) throw new Error("a SQLite handle without its door (not opened by openDatabase)");
  return door;
}
