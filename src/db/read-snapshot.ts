// One read transaction per event-loop turn on SQLite's reader connection. Outside a transaction
// every statement takes and gives back SQLite's read locks (fcntl on the database file and on its
// WAL index, an fstat to see whether another process changed the file): on the 2-core VM the
// benches run on that is ~6 µs of a ~7 µs session lookup, which takes ~1 µs inside a transaction.
// So the hot reads (prepared.ts, rowsOf) share one deferred transaction: the first of them in a
// turn begins it, and it is committed once the turn's callbacks have run (setImmediate), or at once
// after a write transaction of ours commits.
//
// The snapshot lives on the reader (client.ts), a connection that takes no write, so it can never
// hold a write of ours, and in WAL mode it sees only committed rows: never those of a transaction
// still open on the writer.
//
// What a reader sees: the reads of one turn (the session and the records of every request the
// turn answers) see the database as it was at the turn's first read. A commit of this process ends
// the snapshot, so every read after a write sees it; another process's write is seen from the next
// turn on, at most one turn later than without the snapshot.
import type { Database as SqliteConnection, Statement } from "bun:sqlite";
import { describeError, type Logger, silentLogger } from "../lib/logger";

export class ReadSnapshot {
  /** Whether the transaction open on the reader is this snapshot's. */
  private open = false;
  private endScheduled = false;
  private readonly begin: Statement;
  private readonly commit: Statement;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly logger: Logger = silentLogger,
  ) {
    this.begin = connection.prepare("BEGIN DEFERRED");
    this.commit = connection.prepare("COMMIT");
  }

  /** Before a hot read: joins this turn's snapshot, or begins it. */
  enter(): void {
    if (this.connection.inTransaction) return;
    this.begin.run();
    this.open = true;
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  /** Ends the snapshot if one is open: after a write of ours commits, before a ping or close. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    // SQLite rolls a transaction back by itself on some errors (an I/O error).
    if (this.connection.inTransaction) this.commit.run();
  }

  /**
   * end() where a throw would do harm: from the event loop, where it would end the process, and
   * before a write's COMMIT, which the reader's trouble must not undo. A snapshot that cannot be
   * ended (the connection closed under it, an I/O error) is logged and forgotten instead, and the
   * next hot read begins afresh or fails in its own request.
   */
  endOrLog(): void {
    try {
      this.end();
    } catch (error) {
      this.logger.error("the read snapshot could not be ended", describeError(error));
    }
  }

  private readonly endOfTurn = () => {
    this.endScheduled = false;
    this.endOrLog();
  };
}

/**
 * The snapshot of each SQLite handle's reader, keyed by the reader's Drizzle instance (`db.orm`
 * outside a transaction; a transaction's handle carries the writer's, which has none).
 */
const snapshots = new WeakMap<object, ReadSnapshot>();

export function registerReadSnapshot(orm: object, snapshot: ReadSnapshot): void {
  snapshots.set(orm, snapshot);
}

/**
 * The read snapshot of a SQLite handle; undefined on Postgres, where each statement has a pooled
 * connection of its own, and inside a SQLite transaction, whose reads must see its own writes.
 */
export function readSnapshotOf(db: { orm: object }): ReadSnapshot | undefined {
  return snapshots.get(db.orm);
}
