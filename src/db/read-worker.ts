// A SQLite reader on a thread of its own, for the few reads whose cost grows with the data and
// that no index can bound (README "Data at a publisher's scale"): `GET /user`'s exact count and
// sorted page of a wide prefix read every match (111,112 users for "reader1" at S3, ~100 ms). On
// the server's reader such a read holds the one event loop, and every request waits; here it
// holds only this thread, and the loop goes on serving.
//
// The thread has a read-only connection to the file: in WAL mode it sees the last commit of any
// process, as the server's reader does from its next turn on (read-snapshot.ts). The thread
// starts at the first read and lets the process exit while idle. Postgres needs none of this:
// its statements never run on the loop.
import type { Database } from "#db";
import { type ClonedError, errorOf } from "./writer-worker";

/** What the server asks the thread (read-worker-thread.ts). */
export type ReadRequest =
  | { type: "open"; path: string }
  | { type: "read"; id: number; sql: string; params: unknown[] };

/** What the thread answers: the rows as arrays of column values, in the statement's order. */
export type ReadReply = { id: number; rows?: unknown[][]; error?: ClonedError };

/** A statement as Drizzle writes it (`query.toSQL()`). */
export interface ReadStatement {
  sql: string;
  params: unknown[];
}

export class ReadWorker {
  private thread: Worker | undefined;
  private readonly pending = new Map<
    number,
    { resolve(rows: unknown[][]): void; reject(error: Error): void }
  >();
  private lastId = 0;

  constructor(private readonly path: string) {}

  /** The statement's rows, each an array of its columns' values, read on the thread. */
  values(statement: ReadStatement): Promise<unknown[][]> {
    const thread = this.started();
    const id = ++this.lastId;
    const rows = new Promise<unknown[][]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    thread.ref();
    thread.postMessage({
      type: "read",
      id,
      sql: statement.sql,
      params: statement.params,
    } satisfies ReadRequest);
    return rows;
  }

  close(): void {
    const failed = [...this.pending.values()];
    this.pending.clear();
    for (const waiting of failed) waiting.reject(new Error("the SQLite read worker was closed"));
    this.thread?.terminate();
    this.thread = undefined;
  }

  private started(): Worker {
    if (this.thread) return this.thread;
    const thread = new Worker(new URL("./read-worker-thread.ts", import.meta.url));
    thread.onmessage = (event: MessageEvent<ReadReply>) => {
      const reply = event.data;
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      // An idle thread must not keep the process alive (tests, a SIGTERM drain).
      if (this.pending.size === 0) thread.unref();
      // SQLite's message and codes (busy.ts and errors.ts read them); the error handler
      // decides what a client sees of it.
      if (reply.error !== undefined) waiting?.reject(errorOf(reply.error));
      else waiting?.resolve(reply.rows ?? []);
    };
    thread.onerror = (event) => {
      const failed = [...this.pending.values()];
      this.pending.clear();
      this.thread = undefined;
      for (const waiting of failed) waiting.reject(new Error(`SQLite read worker failed: ${event.message}`));
    };
    thread.postMessage({ type: "open", path: this.path } satisfies ReadRequest);
    this.thread = thread;
    return thread;
  }
}

/** The read worker of each SQLite handle, keyed by its reader's Drizzle instance (`db.orm`). */
const workers = new WeakMap<object, ReadWorker>();

export function registerReadWorker(orm: object, worker: ReadWorker): void {
  workers.set(orm, worker);
}

/**
 * The read worker of a SQLite handle opened by openDatabase; undefined on Postgres and inside a
 * transaction (whose reads must see its own writes, on its own connection).
 */
export function readWorkerOf(db: Database): ReadWorker | undefined {
  return workers.get(db.orm);
}
