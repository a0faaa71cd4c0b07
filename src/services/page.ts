import type { Database } from "#db";
import type { ListWindow, Page } from "../lib/list-window";

/**
 * A list's rows and total: a whole list is its own total, so only a page pays for a count
 * (run beside the rows).
 */
export async function pageOf<Row>(
  window: ListWindow,
  rows: () => Promise<Row[]>,
  count: () => Promise<number>,
): Promise<Page<Row>> {
  if (window.limit === undefined) {
    const all = await rows();
    return { rows: all, total: all.length };
  }
  const [slice, total] = await Promise.all([rows(), count()]);
  return { rows: slice, total };
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
      () => list(db, window, filter),
      () => count(db, filter),
    );
}
