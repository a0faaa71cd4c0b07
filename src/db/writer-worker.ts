// The SQLite writer worker: a thread with connections of its own to the database file, where the
// work that would hold the server's one event loop for long runs instead (README "Data at a
// publisher's scale").
// - Checkpoints. The server's writer takes no automatic checkpoint (client.ts): a COMMIT that
//   pays for one holds the loop while thousands of pages are copied and synced. The worker
//   checkpoints every CHECKPOINT_EVERY_MS (PASSIVE: writers go on meanwhile) and truncates a WAL
//   that grew past WAL_BOUND_BYTES once it is all copied, so the file stays bounded.
// - Long transactions (a print run's 10,000 codes: over a second at S3). The door queues them like
//   any other (transaction.ts, offLoopTransaction), so the process's writes still go one at a
//   time through one door, but the statements run here: the loop goes on serving reads, and the
//   writes queued behind the run wait for it without holding anyone else.
import type { Logger } from "../lib/logger";

/** How often the worker checkpoints: the WAL holds at most about this long of writes. */
export const CHECKPOINT_EVERY_MS = 100;
/** A WAL file larger than this is truncated once it is all copied (and SQLite's own limit). */
export const WAL_BOUND_BYTES = 64 * 1024 * 1024;

/** What the server asks the thread (writer-worker-thread.ts). */
export type WorkerRequest =
  | { type: "open"; path: string; strictTurns: boolean }
  | { type: "transaction"; id: number; module: string; name: string; args: unknown[] }
  | { type: "truncate"; id: number }
  | { type: "close" };

/** What the thread answers. */
export type WorkerReply =
  | { type: "result"; id: number; value?: unknown; error?: ClonedError }
  | { type: "log"; message: string }
  | { type: "wal-over-bound" }
  | { type: "closed" };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** An error as the worker saw it: its message and the codes errors.ts and busy.ts look at. */
export interface ClonedError {
  name: string;
  message: string;
  code?: string;
  errno?: string | number;
}

function errorOf(cloned: ClonedError): Error {
  const error = new Error(cloned.message) as Error & { code?: string; errno?: string | number };
  error.name = cloned.name;
  if (cloned.code !== undefined) error.code = cloned.code;
  if (cloned.errno !== undefined) error.errno = cloned.errno;
  return error;
}

export class WriterWorker {
  private readonly thread: Worker;
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private closed: Promise<void> | undefined;
  /**
   * Called when the WAL is past half its bound and a checkpoint could not empty it: writes follow
   * one another too closely for it to find the lock free. The door then queues truncate().
   */
  onWalOverBound: (() => void) | undefined;

  constructor(path: string, options: { strictTurns: boolean; logger: Logger }) {
    this.thread = new Worker(new URL("./writer-worker-thread.ts", import.meta.url));
    this.thread.onmessage = (event: MessageEvent<WorkerReply>) => {
      const reply = event.data;
      if (reply.type === "log") {
        options.logger.error(reply.message, { alarm: "checkpoint" });
        return;
      }
      if (reply.type === "wal-over-bound") {
        this.onWalOverBound?.();
        return;
      }
      if (reply.type !== "result") return;
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      // An idle worker must not keep the process alive (tests, a SIGTERM drain): its timer is its own.
      if (this.pending.size === 0) this.thread.unref();
      if (reply.error) waiting?.reject(errorOf(reply.error));
      else waiting?.resolve(reply.value);
    };
    this.thread.onerror = (event) => {
      const failed = [...this.pending.values()];
      this.pending.clear();
      for (const waiting of failed)
        waiting.reject(new Error(`SQLite writer worker failed: ${event.message}`));
    };
    this.post({ type: "open", path, strictTurns: options.strictTurns });
    this.thread.unref();
  }

  /**
   * Runs `name`, an export of `module` (a file URL), in one transaction on the worker's
   * connection, with `args` (structured-cloneable) after the transaction's handle; its result.
   */
  transaction<T>(module: string, name: string, args: unknown[]): Promise<T> {
    const id = ++this.lastId;
    const result = new Promise<T>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
    this.thread.ref();
    this.post({ type: "transaction", id, module, name, args });
    return result;
  }

  /**
   * Copies the whole WAL into the file and empties it (TRUNCATE), waiting for the lock as long as
   * another process holds it: the door runs it in its queue, so no write of this process is in
   * the way.
   */
  truncate(): Promise<void> {
    const id = ++this.lastId;
    const result = new Promise<void>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
    this.thread.ref();
    this.post({ type: "truncate", id });
    return result;
  }

  /** Ends the worker after its last checkpoint; once, however often it is called. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      const done = () => {
        this.thread.terminate();
        resolve();
      };
      this.thread.addEventListener("message", (event: MessageEvent<WorkerReply>) => {
        if (event.data.type === "closed") done();
      });
      // A worker that cannot answer (it failed to open the file) is ended all the same.
      setTimeout(done, 2000).unref();
      this.thread.ref();
      this.post({ type: "close" });
    });
    return this.closed;
  }

  private post(request: WorkerRequest): void {
    this.thread.postMessage(request);
  }
}
