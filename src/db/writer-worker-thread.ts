// The thread behind writer-worker.ts: its own handle on the database file (with a door of its own,
// so its transactions follow the same rules as the server's) for the transactions it is given,
// and a plain connection that checkpoints the WAL on a timer.
import { Database as SqliteConnection } from "bun:sqlite";
import { statSync } from "node:fs";
import type { Database } from "#db";
import { type DatabaseHandle, openDatabase } from "./client";
import { SQLITE_BUSY_TIMEOUT_MS } from "./migration-lock";
import { withTransaction } from "./transaction";
import {
  CHECKPOINT_EVERY_MS,
  type ClonedError,
  WAL_BOUND_BYTES,
  type WorkerReply,
  type WorkerRequest,
} from "./writer-worker";

declare const self: Worker;

let opened: Promise<{ handle: DatabaseHandle; checkpointer: SqliteConnection; path: string }> | undefined;
let timer: ReturnType<typeof setInterval> | undefined;

function reply(message: WorkerReply): void {
  self.postMessage(message);
}

function cloned(error: unknown): ClonedError {
  const e = (error ?? {}) as { name?: unknown; message?: unknown; code?: unknown; errno?: unknown };
  return {
    name: typeof e.name === "string" ? e.name : "Error",
    message: typeof e.message === "string" ? e.message : String(error),
    ...(typeof e.code === "string" ? { code: e.code } : {}),
    ...(typeof e.errno === "string" || typeof e.errno === "number" ? { errno: e.errno } : {}),
  };
}

/**
 * Copies what the WAL holds into the database file without stopping writers (PASSIVE). A WAL
 * starts over only when a write begins after all of it was copied, which a steady stream of
 * writes never leaves time for: once the file is past half its bound, the checkpoint is a
 * TRUNCATE, which holds writers back for the moment it takes to copy what PASSIVE left (they wait
 * for the lock without holding the loop, db/busy.ts) and empties the file. When writes follow one
 * another too closely for it to find the lock free within the busy timeout, the server's door is
 * asked for a moment without writes (truncate(), queued like a transaction).
 */
function checkpoint(connection: SqliteConnection, path: string): void {
  try {
    connection.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) <= WAL_BOUND_BYTES / 2) {
      overBound = false;
      return;
    }
    const truncated = connection.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
    if (truncated.busy === 0) overBound = false;
    else askForTruncate();
  } catch (error) {
    const code = String((error as { code?: unknown }).code ?? "");
    if (!code.startsWith("SQLITE_BUSY") && !code.startsWith("SQLITE_LOCKED"))
      reply({ type: "log", message: `WAL checkpoint failed: ${cloned(error).message}` });
    // Locked by a writer or a reader: the next round tries again, and the door is asked.
    else if ((statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0) > WAL_BOUND_BYTES / 2)
      askForTruncate();
  }
}

/** Whether the server was told the WAL is past its bound and has not had it truncated yet. */
let overBound = false;

/** Asks the server's door for a moment without writes (WriterWorker.truncate), once. */
function askForTruncate(): void {
  if (overBound) return;
  overBound = true;
  reply({ type: "wal-over-bound" });
}

/** TRUNCATE in the door's queue: only another process can hold the lock, so it may wait longer. */
async function truncate(connection: SqliteConnection): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const done = connection.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
      if (done.busy === 0) break;
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? "");
      if (!code.startsWith("SQLITE_BUSY") && !code.startsWith("SQLITE_LOCKED")) throw error;
    }
    await Bun.sleep(10);
  }
  overBound = false;
}

async function open(path: string, strictTurns: boolean) {
  const handle = await openDatabase(`sqlite:${path}`, { strictTurns, checkpoints: "worker-thread" });
  const checkpointer = new SqliteConnection(path, { strict: true });
  checkpointer.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  timer = setInterval(() => checkpoint(checkpointer, path), CHECKPOINT_EVERY_MS);
  return { handle, checkpointer, path };
}

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const request = event.data;
  if (request.type === "open") {
    opened = open(request.path, request.strictTurns);
    opened.catch((error) =>
      reply({ type: "log", message: `SQLite writer worker: ${cloned(error).message}` }),
    );
    return;
  }
  if (request.type === "close") {
    if (timer) clearInterval(timer);
    try {
      const { handle, checkpointer, path } = await opened!;
      checkpoint(checkpointer, path);
      checkpointer.close();
      await handle.close();
    } catch {
      // Nothing was opened: nothing to close.
    }
    reply({ type: "closed" });
    return;
  }
  if (request.type === "truncate") {
    try {
      await truncate((await opened!).checkpointer);
      reply({ type: "result", id: request.id });
    } catch (error) {
      reply({ type: "result", id: request.id, error: cloned(error) });
    }
    return;
  }
  try {
    const { handle, checkpointer, path } = await opened!;
    const module = (await import(request.module)) as Record<string, unknown>;
    const work = module[request.name];
    if (typeof work !== "function") throw new Error(`${request.module} exports no ${request.name}`);
    const value = await withTransaction(handle.db, (tx: Database) => work(tx, ...request.args));
    reply({ type: "result", id: request.id, value });
    // What the transaction wrote goes to the file at once, not up to a round later.
    checkpoint(checkpointer, path);
  } catch (error) {
    reply({ type: "result", id: request.id, error: cloned(error) });
  }
};
