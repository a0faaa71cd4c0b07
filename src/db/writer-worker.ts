// The SQLite writer worker: a thread with connections of its own to the database file, where the
// work that would hold the server's one event loop for long runs instead (README "Data at a
// publisher's scale").
// - Checkpoints. SQLite's own checkpoint runs in the COMMIT that fills the WAL past its threshold,
//   on the event loop, which waits while thousands of pages are copied and synced. The worker
//   copies them instead, every CHECKPOINT_EVERY_MS (PASSIVE: writers go on meanwhile). A copy
//   made beside a steady stream of writes never starts the WAL over, though (a write must begin
//   once all of it is copied, and the next one always lands first), and a copy slowed by the
//   disk would let the writes run ahead without limit. So the door looks at the WAL after each
//   COMMIT (walFull, from its index: wal-index.ts): once it holds RESTART_BYTES, it queues a turn
//   without writes in which the worker starts it over (empty(): RESTART), as the worker does
//   after each of its own transactions. The writes queued meanwhile wait without holding the
//   loop: that back-pressure keeps the WAL under WAL_BOUND_BYTES. RESTART rather than TRUNCATE:
//   the file keeps its size and is written over from its start, where a file cut to nothing is
//   grown again block by block in the kernel (a fifth of the redemption load's throughput here,
//   bench/README.md "The WAL started over in place"); journal_size_limit cuts a file that grew
//   past WAL_BOUND_BYTES back to it. Should the worker fail, the server's writer keeps SQLite's
//   checkpoint at FALLBACK_CHECKPOINT_BYTES (client.ts).
// - Long transactions (a print run's 10,000 codes: over a second at S3). The door queues them like
//   any other (transaction.ts, offLoopTransaction), so the process's writes still go one at a
//   time through one door, but the statements run here: the loop goes on serving reads, and the
//   writes queued behind the run wait for it without holding anyone else.
import type { Logger } from "../lib/logger";
import type { WalIndex } from "./wal-index";

/** How often the worker checkpoints: the WAL holds at most about this long of writes. */
export const CHECKPOINT_EVERY_MS = 100;
/** The largest the WAL file may grow (and SQLite's journal_size_limit: cut back to it when it starts over). */
export const WAL_BOUND_BYTES = 64 * 1024 * 1024;
/**
 * Past this much WAL the door gives the worker a turn to start it over. Small: a page that every
 * write changes (a counter's, an index's root) has a frame in the WAL for each of them, and
 * SQLite's lookup of such a page walks them all in the WAL index, on every read of every
 * connection. Redemptions at 16 MiB spent ~70 µs more CPU each than at 1 MiB (bench/README.md,
 * "The WAL started over in place"); SQLite's own default checkpoints at 1,000 pages, ~4 MiB.
 */
export const RESTART_BYTES = 1024 * 1024;
/**
 * After a restart that a reader kept from finishing (another process's, or a whole list streaming
 * from its snapshot), the door asks again only once the WAL has grown this much more: each try
 * holds the writes for up to ~0.3 s, which a long reader must not make a stall per MiB.
 */
export const RETRY_RESTART_BYTES = WAL_BOUND_BYTES / 4;
/** The server's writer checkpoints itself (wal_autocheckpoint) past this much: the worker fell behind. */
export const FALLBACK_CHECKPOINT_BYTES = WAL_BOUND_BYTES / 2;

/** What the server asks the thread (writer-worker-thread.ts). */
export type WorkerRequest =
  | { type: "open"; path: string; strictTurns: boolean }
  | { type: "transaction"; id: number; module: string; name: string; args: unknown[] }
  | { type: "restart"; id: number }
  | { type: "close" };

/** What the thread answers. */
export type WorkerReply =
  | { type: "result"; id: number; value?: unknown; error?: ClonedError }
  | { type: "log"; message: string }
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

/** The error a thread cloned, rebuilt on this side with its message and codes. */
export function errorOf(cloned: ClonedError): Error {
  const error = new Error(cloned.message) as Error & { code?: string; errno?: string | number };
  error.name = cloned.name;
  if (cloned.code !== undefined) error.code = cloned.code;
  if (cloned.errno !== undefined) error.errno = cloned.errno;
  return error;
}

/** An error as a thread sends it back: only what structured cloning keeps and callers read. */
export function clonedError(error: unknown): ClonedError {
  const e = (error ?? {}) as { name?: unknown; message?: unknown; code?: unknown; errno?: unknown };
  return {
    name: typeof e.name === "string" ? e.name : "Error",
    message: typeof e.message === "string" ? e.message : String(error),
    ...(typeof e.code === "string" ? { code: e.code } : {}),
    ...(typeof e.errno === "string" || typeof e.errno === "number" ? { errno: e.errno } : {}),
  };
}

export class WriterWorker {
  private readonly thread: Worker;
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private closed: Promise<void> | undefined;
  /** What the WAL holds, and the bytes at which the door next queues empty(). */
  private readonly wal: WalIndex;
  private fullAt = RESTART_BYTES;
  private emptying = false;

  /** `wal`: the file's WAL index, which its opener closes after its connections (wal-index.ts). */
  constructor(path: string, options: { strictTurns: boolean; logger: Logger; wal: WalIndex }) {
    this.wal = options.wal;
    this.thread = new Worker(new URL("./writer-worker-thread.ts", import.meta.url));
    this.thread.onmessage = (event: MessageEvent<WorkerReply>) => {
      const reply = event.data;
      if (reply.type === "log") {
        options.logger.error(reply.message, { alarm: "checkpoint" });
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
   * After a COMMIT of the server's writer: whether the WAL holds RESTART_BYTES and no empty() is
   * queued yet (a read of 96 bytes of its index, a few µs); when it answers true, the caller
   * queues empty().
   * Once the worker could not empty it (a reader held it), it answers true again only after
   * another RETRY_RESTART_BYTES: a WAL held that way grows whatever anyone does, and the writes
   * must not stall on it.
   */
  walFull(): boolean {
    if (this.emptying) return false;
    if (this.wal.bytes() < this.fullAt) return false;
    this.emptying = true;
    return true;
  }

  /**
   * Copies the whole WAL into the file and starts it over (RESTART). The door runs it in a turn of
   * its own, so no write of this process is in the way and those queued behind wait off the loop.
   */
  async empty(): Promise<void> {
    const id = ++this.lastId;
    const result = new Promise<boolean>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
    this.thread.ref();
    this.post({ type: "restart", id });
    try {
      const emptied = await result;
      this.fullAt = emptied ? RESTART_BYTES : this.wal.bytes() + RETRY_RESTART_BYTES;
    } finally {
      this.emptying = false;
    }
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
