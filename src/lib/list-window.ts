// Which rows of a list to read and what a list read gives back: the plain shapes the list
// endpoints (http/sort-and-page.ts), the services and the SQL helpers (db/order-by.ts) all speak.

import { nextTurn } from "./loop-slices";

export interface SortOrder<F extends string = string> {
  field: F;
  direction: "asc" | "desc";
}

/** Which rows of a list to read: the order asked for (empty: by id) and, for a page, the slice. */
export interface ListWindow<F extends string = string> {
  sort: SortOrder<F>[];
  limit?: number;
  offset?: number;
  /** The size of the whole list, when it was counted before the page is read (services/page.ts). */
  total?: number;
}

/**
 * A list's size counted only up to a bound (the console's filtered lists, whose exact count could
 * read millions of index entries): `count` exact when `more` is false, else the bound, which the
 * list holds more than.
 */
export interface BoundedCount {
  count: number;
  more: boolean;
}

/** One page of a list with a bounded count: its rows, whether a next page has any, the count. */
export interface BoundedPage<Row> {
  rows: Row[];
  hasNext: boolean;
  total: BoundedCount;
}

/** What a service gives for a list: the window's rows and the size of the whole list. */
interface Page<Row> {
  rows: Row[];
  total: number;
}

/**
 * A whole list too long for one body (services/page.ts): its size and its rows chunk by chunk,
 * both read in one snapshot of the database, which `close` gives back (at the end, on an error,
 * or when the client goes away).
 */
export interface RowStream<Row> {
  total: number;
  chunks: AsyncIterable<Row[]>;
  close(): Promise<void>;
}

/**
 * A whole list too long for one body, not opened yet: `open` takes a snapshot slot for `holder`
 * (who asks: a user's uuid, or an anonymous client's address; one stream each at a time).
 */
export interface ListStream<Row> {
  open(holder: string): Promise<RowStream<Row>>;
}

/** What a service gives for a list: its rows at once, or a stream of them for a long whole list. */
export type ListRead<Row> = Page<Row> | ListStream<Row>;

/**
 * Rows already in memory, answered as a stream of `chunk` rows a turn: a 10,000-code print run's
 * 201 body made in one JSON.stringify held the event loop for it. No snapshot slot is taken (the
 * rows are read), so `open` ignores its holder.
 */
export function streamOfRows<Row>(rows: Row[], chunk = 500): ListStream<Row> {
  async function* chunks(): AsyncGenerator<Row[]> {
    for (let start = 0; start < rows.length; start += chunk) {
      yield rows.slice(start, start + chunk);
      await nextTurn();
    }
  }
  return {
    async open() {
      return { total: rows.length, chunks: chunks(), async close() {} };
    },
  };
}
