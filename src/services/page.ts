import type { Database } from "#db";
import { openListSnapshot } from "../db/list-snapshot";
import type { ListRead, ListStream, ListWindow, RowStream } from "../lib/list-window";
import { nextTurn } from "../lib/loop-slices";

/**
 * Rows per read of a streamed list: a chunk is read, mapped and written in a few milliseconds (the
 * event loop is free between chunks), and memory holds one chunk, not the list.
 */
export const LIST_CHUNK = 1000;

/**
 * How a list reads its rows: `window` (its order, and a page's LIMIT/OFFSET or a chunk's LIMIT)
 * and, for a chunk after the first, `after`: the previous chunk's last row, from which the keyset
 * goes on (db/order-by.ts readAfter).
 */
export type ReadRows<Row, F extends string = string> = (
  db: Database,
  window: ListWindow<F>,
  after?: Row,
) => Promise<Row[]>;

/**
 * A list's rows and total. Page 0 reads its rows beside the count; a later page counts first and
 * reads with the total in its window, so that a page past the middle is read from the list's end
 * (db/page-read.ts), and a page past the end is empty without a read. A whole list that fits in
 * one chunk is its own total, read in one query like a page; a longer one is streamed: its count
 * and its chunks are read in one snapshot (db/list-snapshot.ts), so the total matches the array,
 * opened when the caller names who holds it.
 */
export async function pageOf<Row, F extends string>(
  db: Database,
  window: ListWindow<F>,
  read: ReadRows<Row, F>,
  count: (db: Database) => Promise<number>,
): Promise<ListRead<Row>> {
  if (window.limit !== undefined) {
    if (!window.offset) {
      const [rows, total] = await Promise.all([read(db, window), count(db)]);
      return { rows, total };
    }
    const total = await count(db);
    return { rows: window.offset < total ? await read(db, { ...window, total }) : [], total };
  }
  // One row more than a chunk tells a list that fits from one that does not.
  const first = await read(db, { sort: window.sort, limit: LIST_CHUNK + 1 });
  if (first.length <= LIST_CHUNK) return { rows: first, total: first.length };
  return { open: (holder) => streamOf(db, window, read, count, holder) } satisfies ListStream<Row>;
}

/** The whole list in chunks, read from its start again in a snapshot `holder` holds. */
async function streamOf<Row, F extends string>(
  db: Database,
  window: ListWindow<F>,
  read: ReadRows<Row, F>,
  count: (db: Database) => Promise<number>,
  holder: string,
): Promise<RowStream<Row>> {
  const snapshot = await openListSnapshot(db, holder);
  let total: number;
  try {
    total = await count(snapshot.db);
  } catch (error) {
    await snapshot.release();
    throw error;
  }
  let closed = false;
  async function* chunks(): AsyncGenerator<Row[]> {
    const chunkWindow = { sort: window.sort, limit: LIST_CHUNK };
    let after: Row | undefined;
    for (;;) {
      const rows = await read(snapshot.db, chunkWindow, after);
      if (rows.length > 0) yield rows;
      if (rows.length < LIST_CHUNK || closed) return;
      after = rows[rows.length - 1];
      // SQLite reads synchronously: a turn of its own per chunk lets other requests in between.
      await nextTurn();
      if (closed) return;
    }
  }
  return {
    total,
    chunks: chunks(),
    close() {
      closed = true;
      return snapshot.release();
    },
  };
}

/**
 * The list a service offers where it adds no rule to its repository's: the window's rows of `list`
 * with the total of `count` (see pageOf). A filter, for a list that takes one, goes to both.
 */
export function pagedList<Row, F extends string, Filter>(
  list: (db: Database, window: ListWindow<F>, filter?: Filter, after?: Row) => Promise<Row[]>,
  count: (db: Database, filter?: Filter) => Promise<number>,
): (db: Database, window: ListWindow<F>, filter?: Filter) => Promise<ListRead<Row>> {
  return (db, window, filter) =>
    pageOf(
      db,
      window,
      (on, chunk, after) => list(on, chunk, filter, after),
      (on) => count(on, filter),
    );
}
