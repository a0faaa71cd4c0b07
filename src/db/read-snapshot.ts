// One read transaction per event-loop turn on SQLite. Outside a transaction every statement takes
// and gives back SQLite's read locks (fcntl on the database file and on its WAL index, an fstat
// to see whether another process changed the file): on the 2-core VM the benches run on that is
// ~6 µs of a ~7 µs session lookup, which takes ~1 µs inside a transaction. So the hot reads
// (prepared.ts, rowsOf) share one deferred transaction: the first of them in a turn begins it,
// and it is committed once the turn's callbacks have run (setImmediate), or at once before
// anything writes.
//
// What a reader sees: the reads of one turn (the session and the records of every request the
// turn answers) see the database as it was at the turn's first read. A write of this process ends
// the snapshot before it begins, so every read after a write sees it; another process's write is
// seen from the next turn on, at most one turn later than without the snapshot.
import type { Database as SqliteConnection, Statement } from "bun:sqlite";

/** Statements that only read: anything else ends the snapshot before it runs. */
const READ_STATEMENT = /^\s*select\b/i;

export class ReadSnapshot {
  /** Whether the transaction open on the connection is this snapshot (not a write's). */
  private open = false;
  private endScheduled = false;
  private readonly begin: Statement;
  private readonly commit: Statement;

  constructor(private readonly connection: SqliteConnection) {
    this.begin = connection.prepare("BEGIN DEFERRED");
    this.commit = connection.prepare("COMMIT");
  }

  /**
   * Before a hot read: joins the transaction already open (this turn's snapshot, or a write
   * transaction, whose own writes the read must see), or begins the turn's snapshot.
   */
  enter(): void {
    if (this.connection.inTransaction) return;
    this.begin.run();
    this.open = true;
    if (!this.endScheduled) {
      this.endScheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  /** Ends the snapshot if one is open: before a write, a write transaction, a ping or close. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    // SQLite rolls a transaction back by itself on some errors (a full disk, an I/O error).
    if (this.connection.inTransaction) this.commit.run();
  }

  /**
   * Drizzle's query hook (client.ts) sees every statement before it runs: a write issued outside
   * a write transaction must not join the snapshot, where it would be committed only when the
   * turn ends, after its request may already have been answered.
   */
  beforeStatement(query: string): void {
    if (this.open && !READ_STATEMENT.test(query)) this.end();
  }

  private readonly endOfTurn = () => {
    this.endScheduled = false;
    this.end();
  };
}

/**
 * The snapshot of each SQLite handle's connection, keyed by its Drizzle instance, which a
 * transaction's handle shares.
 */
const snapshots = new WeakMap<object, ReadSnapshot>();

export function registerReadSnapshot(orm: object, snapshot: ReadSnapshot): void {
  snapshots.set(orm, snapshot);
}

/**
 * The read snapshot of a SQLite handle; undefined on Postgres, where each statement has a pooled
 * connection of its own.
 */
export function readSnapshotOf(db: { orm: object }): ReadSnapshot | undefined {
  return snapshots.get(db.orm);
}
