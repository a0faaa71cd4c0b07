// How a page of a list is read: from the start of the list, or — for a page past the middle —
// from its end. OFFSET walks and discards every row before the page, so the last page of five
// million activations costs a walk of five million index entries read forwards, and a few read
// backwards. The mirror is exact: every ORDER BY term is flipped, the id tie-breaker too (it
// follows the last term's direction: sortTermsOf in order-by.ts), and both databases move NULLs
// with the direction (SQLite: first ascending, last descending; Postgres: the other way round).
import type { ListWindow, SortOrder } from "../lib/list-window";

/** A window to read in SQL, and whether its rows come back in reverse and must be turned round. */
export interface PageRead extends ListWindow<string> {
  reversed: boolean;
}

const flipped = ({ field, direction }: SortOrder): SortOrder => ({
  field,
  direction: direction === "asc" ? "desc" : "asc",
});

/**
 * The read for `window`: itself, unless it is a page past the middle of a list of `window.total`
 * rows; then the same rows counted from the end, in the reverse order. `idField` names the
 * tie-breaker column, which orders a list that has no sort of its own.
 */
export function pageReadOf(window: ListWindow<string>, idField = "id"): PageRead {
  const { limit, offset = 0, total } = window;
  if (limit === undefined || total === undefined || offset * 2 <= total || offset >= total) {
    return { ...window, reversed: false };
  }
  const end = Math.min(offset + limit, total);
  const sort = window.sort.length > 0 ? window.sort : [{ field: idField, direction: "asc" as const }];
  return { sort: sort.map(flipped), limit: end - offset, offset: total - end, reversed: true };
}
