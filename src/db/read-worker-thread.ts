// The thread behind read-worker.ts: one read-only connection to the database file, one statement
// at a time, in the order they were asked.
import { type SQLQueryBindings, Database as SqliteConnection } from "bun:sqlite";
import { SQLITE_BUSY_TIMEOUT_MS } from "./migration-lock";
import type { ReadReply, ReadRequest } from "./read-worker";
import { clonedError } from "./writer-worker";

declare const self: Worker;

let path: string | undefined;
let connection: SqliteConnection | undefined;

/** Opened at the first read, so that a file that cannot be opened fails that read, with its reason. */
function opened(): SqliteConnection {
  if (connection) return connection;
  if (path === undefined) throw new Error("the SQLite read worker was given no file");
  const opening = new SqliteConnection(path, { readonly: true, strict: true });
  opening.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  connection = opening;
  return connection;
}

function reply(message: ReadReply): void {
  self.postMessage(message);
}

self.onmessage = (event: MessageEvent<ReadRequest>) => {
  const request = event.data;
  if (request.type === "open") {
    path = request.path;
    return;
  }
  try {
    const rows = opened()
      .query(request.sql)
      .values(...(request.params as SQLQueryBindings[])) as unknown[][];
    reply({ id: request.id, rows });
  } catch (error) {
    reply({ id: request.id, error: clonedError(error) });
  }
};
