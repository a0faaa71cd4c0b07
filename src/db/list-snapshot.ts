// A whole list is streamed over many event-loop turns (services/page.ts), and its X-Total-Count
// must match the array it streams: the count and every chunk are read in one snapshot of the
// database, held for the stream's life.
//
// Postgres: one REPEATABLE READ, READ ONLY transaction on one pooled connection; the number of
// snapshots open at once is bounded so that streams never take the whole pool from the other
// requests. SQLite: a connection of its own to the same file (`query_only`), holding a read
// transaction; in WAL mode it blocks no writer, and the process's main connection, whose
// transactions must not outlive an event-loop turn (it is every request's), is never used.
//
// No caller may hold the slots hostage (README "What is there", Lists and streams): a whole
// list waits at most LIST_SLOT_WAIT_MS for a slot (then 503), each holder (a user, or an
// anonymous client's address) has at most one snapshot open (a second is 429), and a stream
// whose client stops reading is cut (http/list-stream.ts), which ends its snapshot.
import { Database as SqliteConnection } from "bun:sqlite";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import type { Database } from "#db";
import { Slots } from "../lib/slots";
import { LIST_SLOT_WAIT_MS, ListStreamRefused } from "../lib/stream-limits";
import { SQLITE_BUSY_TIMEOUT_MS } from "./migration-lock";
import * as sqliteSchema from "./schema/sqlite";

export interface ListSnapshot {
  /** A handle whose reads all see the database as it was when the snapshot's first read ran. */
  db: Database;
  /** Ends the snapshot and gives its slot back; once, however often it is called. */
  release(): Promise<void>;
}

/** Snapshots a SQLite process may hold open at once: each is a connection and a file handle. */
const SQLITE_SNAPSHOTS = 4;

/**
 * Snapshots a Postgres pool of `poolMax` connections lends to streams: a quarter, at least one,
 * so that the other requests keep most of the pool while lists stream.
 */
function postgresSnapshotsOf(poolMax: number): number {
  return Math.max(1, Math.floor(poolMax / 4));
}

/** A database's slots, and who holds one now (one each). */
interface SnapshotGate {
  slots: Slots;
  holders: Set<string>;
}

/** The gate of each database, keyed by its client (the bun:sqlite connection, or the SQL pool). */
const gatesByClient = new WeakMap<object, SnapshotGate>();

interface PostgresPool {
  options?: { max?: number };
}

/**
 * The connection (SQLite) or pool (Postgres: Bun's SQL, a function) under the handle openDatabase
 * made; a transaction's handle has none.
 */
function clientOf(db: Database): object {
  const orm: object = db.orm;
  const client = "$client" in orm ? orm.$client : undefined;
  if (typeof client === "function" || (typeof client === "object" && client !== null)) return client;
  throw new TypeError("a list snapshot needs the database's own handle, not a transaction's");
}

function gateOf(db: Database): SnapshotGate {
  const client = clientOf(db);
  let gate = gatesByClient.get(client);
  if (gate === undefined) {
    const size =
      db.dialect === "postgres"
        ? postgresSnapshotsOf((client as PostgresPool).options?.max ?? 10)
        : SQLITE_SNAPSHOTS;
    gate = { slots: new Slots(size), holders: new Set() };
    gatesByClient.set(client, gate);
  }
  return gate;
}

/** Snapshots of `db` open now: what tests check is given back. */
export function openListSnapshots(db: Database): number {
  return gatesByClient.get(clientOf(db))?.slots.taken ?? 0;
}

/** How many snapshots of `db` may be open at once. */
export function listSnapshotSlots(db: Database): number {
  return gateOf(db).slots.size;
}

/**
 * Opens a snapshot of `db` (the app's root handle) for `holder` (a user's uuid, or an anonymous
 * client's address), waiting at most LIST_SLOT_WAIT_MS for a slot when as many as allowed are
 * open. ListStreamRefused when `holder` already has one open, or no slot came free in time. The caller
 * must `release` it, whatever happens.
 */
export async function openListSnapshot(db: Database, holder: string): Promise<ListSnapshot> {
  const { slots, holders } = gateOf(db);
  if (holders.has(holder)) throw new ListStreamRefused("busy-holder");
  // Held while waiting too: a second request of the same holder is refused, not queued.
  holders.add(holder);
  const giveBack = await slots.takeWithin(LIST_SLOT_WAIT_MS);
  if (giveBack === undefined) {
    holders.delete(holder);
    throw new ListStreamRefused("no-slot");
  }
  const free = () => {
    holders.delete(holder);
    giveBack();
  };
  let opened: { db: Database; end(): Promise<void> };
  try {
    opened = db.dialect === "postgres" ? await openPostgresSnapshot(db) : openSqliteSnapshot(db);
  } catch (error) {
    free();
    throw error;
  }
  let released: Promise<void> | undefined;
  return {
    db: opened.db,
    release() {
      released ??= opened.end().finally(free);
      return released;
    },
  };
}

interface PostgresTransactions {
  transaction(
    work: (tx: unknown) => Promise<void>,
    config: { isolationLevel: "repeatable read"; accessMode: "read only" },
  ): Promise<void>;
}

/**
 * Drizzle runs a transaction for as long as its callback's promise is pending: the callback hands
 * its handle out and waits for `end`, so the stream's reads run in it across many turns.
 */
function openPostgresSnapshot(db: Database): Promise<{ db: Database; end(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    let finish!: () => void;
    const ended = new Promise<void>((done) => {
      finish = done;
    });
    const transaction = (db.orm as unknown as PostgresTransactions).transaction(
      async (tx) => {
        resolve({
          db: { ...db, orm: tx as Database["orm"] },
          async end() {
            finish();
            // A read-only transaction has nothing to lose: how its COMMIT went changes nothing.
            await transaction.catch(() => undefined);
          },
        });
        await ended;
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    );
    // Before the callback ran, this is why the snapshot could not open; after, resolve has won.
    transaction.catch(reject);
  });
}

function openSqliteSnapshot(db: Database): { db: Database; end(): Promise<void> } {
  const client = clientOf(db);
  if (!(client instanceof SqliteConnection))
    throw new TypeError("a SQLite handle without a bun:sqlite connection");
  const { filename } = client;
  const connection = new SqliteConnection(filename, { strict: true, create: false });
  try {
    connection.exec("PRAGMA query_only = ON");
    connection.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    // Deferred: the snapshot starts at the first read (the count), and holds no lock a writer needs.
    connection.exec("BEGIN");
  } catch (error) {
    connection.close();
    throw error;
  }
  // The tables a SQLite handle carries (db/client.ts), typed as SQLite's whichever dialect "#db" names.
  const orm = drizzleSqlite({ client: connection, schema: sqliteSchema.tables });
  return {
    db: { ...db, orm: orm as unknown as Database["orm"] },
    async end() {
      if (connection.inTransaction) connection.exec("COMMIT");
      connection.close();
    },
  };
}
