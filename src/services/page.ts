import type { Database } from "#db";
import type { ListWindow, Page } from "../lib/list-window";

/**
 * A list's rows and total: a whole list is its own total, so only a page pays for a count. Page 0
 * reads its rows beside the count; a later page counts first and hands the total to `rows`, which
 * may then read a page past the middle from the list's end (db/page-read.ts), and a page past the
 * end is empty without a read.
 */
export async function pageOf<Row>(
  window: ListWindow,
  rows: (total?: number) => Promise<Row[]>,
  count: () => Promise<number>,
): Promise<Page<Row>> {
  if (window.limit === undefined) {
    const all = await rows();
    return { rows: all, total: all.length };
  }
  if (!window.offset) {
    const [slice, total] = await Promise.all([rows(), count()]);
    return { rows: slice, total };
  }
  const total = await count();
  return { rows: window.offset < total ? await rows(total) : [], total };
}

/**
 * The list a service offers where it adds no rule to its repository's: the window's rows of `list`
 * with the total of `count` (see pageOf). A filter, for a list that takes one, goes to both.
 */
export function pagedList<Row, F extends string, Filter>(
  list: (db: Database, window: ListWindow<F>, filter?: Filter) => Promise<Row[]>,
  count: (db: Database, filter?: Filter) => Promise<number>,
): (db: Database, window: ListWindow<F>, filter?: Filter) => Promise<Page<Row>> {
  return (db, window, filter) =>
    pageOf(
      window,
      (total) => list(db, { ...window, total }, filter),
      () => count(db, filter),
    );
}
