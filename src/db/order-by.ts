// ORDER BY for the list endpoints' `sort` (Spring style, `field,asc|desc`), and the keyset that
// reads a whole list in chunks in that same order. Each repository names its sortable fields once:
// columns of its table, by their names in the schema (or, for a join, names mapped to columns); the
// route's `sort` parameter is generated from the same names.
import { type AnyColumn, and, asc, desc, eq, gt, isNotNull, isNull, lt, or, type SQL } from "drizzle-orm";
import type { ListWindow } from "../lib/list-window";

/** One term of a list's order: a column, its direction, and where a row keeps its value. */
export interface SortTerm<Row> {
  column: AnyColumn;
  direction: "asc" | "desc";
  valueIn(row: Row): unknown;
}

/**
 * The terms of `window.sort`, with `tieBreaker` (the id) last so that the order is total: pages
 * never overlap and a keyset never skips a row. The id runs in the direction of the last term, so
 * one (field, id) index read forwards or backwards serves either direction (a mixed ORDER BY
 * field DESC, id ASC would sort every run of equal values: all ten million enabled codes for
 * `sort=enabled,desc`). `valueIn` reads a term's value from a row of the list (for a single
 * table, `row[field]`). The names were validated against the same `columns` by the route's schema.
 */
export function sortTermsOf<F extends string, Row>(
  window: Pick<ListWindow<F>, "sort">,
  columns: Record<F, AnyColumn>,
  tieBreaker: SortTerm<Row>,
  fieldValue: (row: Row, field: F) => unknown = (row, field) => (row as Record<string, unknown>)[field],
): SortTerm<Row>[] {
  const terms: SortTerm<Row>[] = window.sort.map(({ field, direction }) => ({
    column: columns[field],
    direction,
    valueIn: (row: Row) => fieldValue(row, field),
  }));
  const last = window.sort.at(-1);
  terms.push(last ? { ...tieBreaker, direction: last.direction } : tieBreaker);
  return terms;
}

/** The ascending `id` tie-breaker of a table's rows. */
export function byId<Row extends { id: number }>(id: AnyColumn): SortTerm<Row> {
  return { column: id, direction: "asc", valueIn: (row) => row.id };
}

/** ORDER BY of the terms, in their order. */
export function orderByTerms(terms: readonly SortTerm<never>[]): SQL[] {
  return terms.map(({ column, direction }) => (direction === "desc" ? desc(column) : asc(column)));
}

/**
 * The next `limit` rows after `last` in the order `terms` gives (`ORDER BY` of the same terms): a
 * list read chunk by chunk without OFFSET. A row comes after `last` when it ties with it on the
 * first k terms and comes after it on term k+1. Each k is read as a query of its own, the
 * deepest first (the rest of `last`'s own tie group), each in the full order, until the chunk is
 * full: every such query is an equality on a prefix of the terms and a range on the next, which
 * an index on the terms can seek to, where one OR of them all would have the database scan each
 * tie group from its start on every chunk (a sort by `enabled` or by a batch's one `createdAt`
 * would cost the square of the list). The rows of a deeper k all come before those of a
 * shallower one, so the chunks concatenate in ORDER BY's order exactly.
 *
 * NULLs sit where each database puts them (SQLite: smallest, first ascending; Postgres: largest,
 * last ascending). The comparisons run in SQL, so text compares by the database's own collation,
 * as ORDER BY does.
 */
export async function readAfter<Row>(
  terms: readonly SortTerm<Row>[],
  last: Row,
  dialect: "sqlite" | "postgres",
  limit: number | undefined,
  read: (keyset: SQL, limit: number | undefined) => Promise<Row[]>,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const keyset of keysetBranches(terms, last, dialect).reverse()) {
    if (limit !== undefined && rows.length >= limit) break;
    rows.push(...(await read(keyset, limit === undefined ? undefined : limit - rows.length)));
  }
  return rows;
}

/** For each k, the rows tying with `last` on the first k terms and after it on term k+1. */
function keysetBranches<Row>(
  terms: readonly SortTerm<Row>[],
  last: Row,
  dialect: "sqlite" | "postgres",
): SQL[] {
  const ties: SQL[] = [];
  const branches: SQL[] = [];
  for (const term of terms) {
    const value = term.valueIn(last);
    const beyond = after(term, value, (dialect === "sqlite") === (term.direction === "asc"));
    if (beyond) branches.push(and(...ties, beyond) as SQL);
    ties.push(value === null || value === undefined ? isNull(term.column) : eq(term.column, value));
  }
  return branches;
}

/** Rows strictly after `value` on this one term; undefined when no row can be. */
function after<Row>(term: SortTerm<Row>, value: unknown, nullsFirst: boolean): SQL | undefined {
  const { column, direction } = term;
  // After a NULL come the values when NULLs come first, and nothing when they come last.
  if (value === null || value === undefined) return nullsFirst ? isNotNull(column) : undefined;
  const beyond = direction === "asc" ? gt(column, value) : lt(column, value);
  // NULLs that sort last come after every value, in a column that can hold them.
  return nullsFirst || column.notNull ? beyond : (or(beyond, isNull(column)) as SQL);
}

/** Applies a page's LIMIT/OFFSET to a dynamic query; a whole list has neither. */
export function paged<Q extends { limit(n: number): { offset(n: number): unknown } }>(
  query: Q,
  window: Pick<ListWindow, "limit" | "offset">,
): Q {
  if (window.limit !== undefined) query.limit(window.limit).offset(window.offset ?? 0);
  return query;
}
