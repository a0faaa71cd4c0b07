// The thread behind writer-worker.ts: its own handle on the database file (with a door of its own,
// so its transactions follow the same rules as the server's) for the transactions it is given,
// and a plain connection that checkpoints the WAL on a timer.
import { Database as SqliteConnection } from "bun:sqlite";
import type { Database } from "#db";
import { isBusy } from "./busy";
import { type DatabaseHandle, openDatabase } from "./client";
import { SQLITE_BUSY_TIMEOUT_MS } from "./migration-lock";
import { withTransaction } from "./transaction";
import { CHECKPOINT_EVERY_MS, clonedError, type WorkerReply, type WorkerRequest } from "./writer-worker";

declare const self: Worker;

let opened: Promise<{ handle: DatabaseHandle; checkpointer: SqliteConnection }> | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

function reply(message: WorkerReply): void {
  self.postMessage(message);
}

/**
 * Copies what the WAL holds into the database file without stopping writers (PASSIVE: it takes
 * no write lock, so the server's BEGIN never waits for it, and waits for no reader). That alone
 * cannot start the WAL over: only a write that begins once all of it is copied does, and under a
 * steady stream of writes the next one always lands before a copy that takes tens of
 * milliseconds ends. The server's door therefore gives the worker a turn without writes once the
 * WAL holds RESTART_BYTES (WriterWorker.walFull), in which restart() empties it; what this has
 * copied by then is what that turn need not.
 */
function checkpoint(connection: SqliteConnection): void {
  try {
    connection.query("PRAGMA wal_checkpoint(PASSIVE)").get();
  } catch (error) {
    // Another checkpoint is running (the server's fallback, another process's): the next round.
    if (!isBusy(error))
      reply({ type: "log", message: `WAL checkpoint failed: ${clonedError(error).message}` });
  }
}

/**
 * In a turn of the door (no write of this process can begin): copies what the WAL still holds
 * and starts it over (RESTART; it waits the busy timeout for the readers of the loop's turn, which
 * end within it); whether it did. After a print run, so that the server's next COMMIT never
 * finds its tens of MiB to copy on the event loop; and when the door finds the WAL full. A reader
 * of another process that holds the WAL for longer than the few tries leaves it as PASSIVE
 * would: copied as far as it may be.
 */
async function restart(connection: SqliteConnection): Promise<boolean> {
  for (let attempt = 0; attempt < RESTART_TRIES; attempt++) {
    try {
      const done = connection.query("PRAGMA wal_checkpoint(RESTART)").get() as { busy: number };
      if (done.busy === 0) return true;
    } catch (error) {
      if (!isBusy(error)) throw error;
    }
    await Bun.sleep(10);
  }
  return false;
}

/** How often restart() asks (each waits up to the busy timeout for readers): ~0.3 s in all. */
const RESTART_TRIES = 10;

async function open(path: string, strictTurns: boolean) {
  const handle = await openDatabase(`sqlite:${path}`, { strictTurns, checkpoints: "worker-thread" });
  const checkpointer = new SqliteConnection(path, { strict: true });
  checkpointer.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  timer = setInterval(() => checkpoint(checkpointer), CHECKPOINT_EVERY_MS);
  return { handle, checkpointer };
}

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  if (request.type === "open") {
    opened = open(request.path, request.strictTurns);
    opened.catch((error) =>
      reply({ type: "log", message: `SQLite writer worker: ${clonedError(error).message}` }),
    );
    return;
  }
  if (request.type === "close") {
    if (timer) clearInterval(timer);
    try {
      const { handle, checkpointer } = await opened!;
      checkpoint(checkpointer);
      checkpointer.close();
      await handle.close();
    } catch {
      // Nothing was opened: nothing to close.
    }
    reply({ type: "closed" });
    return;
  }
  if (request.type === "restart") {
    try {
      reply({ type: "result", id: request.id, value: await restart((await opened!).checkpointer) });
    } catch (error) {
      reply({ type: "result", id: request.id, error: clonedError(error) });
    }
    return;
  }
  try {
    const { handle, checkpointer } = await opened!;
    const module = (await import(request.module)) as Record<string, unknown>;
    const work = module[request.name];
    if (typeof work !== "function") throw new Error(`${request.module} exports no ${request.name}`);
    const value = await withTransaction(handle.db, (tx: Database) => work(tx, ...request.args));
    // Before the answer, which gives the door back: the transaction's pages (tens of MiB at S3)
    // must not be left for the server's fallback checkpoint to copy on the event loop.
    await restart(checkpointer).catch((error: unknown) =>
      reply({ type: "log", message: `WAL checkpoint failed: ${clonedError(error).message}` }),
    );
    reply({ type: "result", id: request.id, value });
  } catch (error) {
    reply({ type: "result", id: request.id, error: clonedError(error) });
  }
};
