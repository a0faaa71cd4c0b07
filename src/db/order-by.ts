// ORDER BY for the list endpoints' `sort` (API.md §1). Each repository names its sortable fields
// once: columns of its table, by their names in the schema (or, for a join, names mapped to
// columns); the route's `sort` parameter is generated from the same names.
import { type AnyColumn, asc, desc, type SQL } from "drizzle-orm";
import type { ListWindow } from "../lib/list-window";

/**
 * ORDER BY terms for `window.sort`, with `tieBreaker` (the id) last so that pages never overlap.
 * The id runs in the direction of the last term, so one (field, id) index read forwards or
 * backwards serves either direction (a mixed ORDER BY field DESC, id ASC would sort every run of
 * equal values: all ten million enabled codes for `sort=enabled,desc`). The names were validated
 * against the same `columns` by the route's schema.
 */
export function orderByOf<F extends string>(
  window: Pick<ListWindow<F>, "sort">,
  columns: Record<F, AnyColumn>,
  tieBreaker: AnyColumn,
): SQL[] {
  const terms = window.sort.map(({ field, direction }) =>
    direction === "desc" ? desc(columns[field]) : asc(columns[field]),
  );
  terms.push(window.sort.at(-1)?.direction === "desc" ? desc(tieBreaker) : asc(tieBreaker));
  return terms;
}

/** Applies a page's LIMIT/OFFSET to a dynamic query; a whole list has neither. */
export function paged<Q extends { limit(n: number): { offset(n: number): unknown } }>(
  query: Q,
  window: Pick<ListWindow, "limit" | "offset">,
): Q {
  if (window.limit !== undefined) query.limit(window.limit).offset(window.offset ?? 0);
  return query;
}
