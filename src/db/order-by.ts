// ORDER BY for the list endpoints' `sort` (API.md §1), and the keyset predicate that reads a whole
// list in chunks in that same order. Each repository names its sortable fields once: columns of
// its table, by their names in the schema (or, for a join, names mapped to columns); the route's
// `sort` parameter is generated from the same names.
import {
  type AnyColumn,
  and,
  asc,
  desc,
  eq,
  gt,
  gte,
  isNotNull,
  isNull,
  lt,
  lte,
  or,
  type SQL,
} from "drizzle-orm";
import type { ListWindow } from "../lib/list-window";

/** One term of a list's order: a column, its direction, and where a row keeps its value. */
export interface SortTerm<Row> {
  column: AnyColumn;
  direction: "asc" | "desc";
  valueIn(row: Row): unknown;
}

/**
 * The terms of `window.sort`, with `tieBreaker` (the id, ascending) last so that the order is
 * total: pages never overlap and a keyset never skips a row. `valueIn` reads a term's value from
 * a row of the list (for a single table, `row[field]`). The names were validated against the same
 * `columns` by the route's schema.
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
  terms.push(tieBreaker);
  return terms;
}

/** The ascending `id` tie-breaker of a table's rows. */
export function byId<Row extends { id: number }>(id: AnyColumn): SortTerm<Row> {
  return { column: id, direction: "asc", valueIn: (row) => row.id };
}

export function orderByTerms(terms: readonly SortTerm<never>[]): SQL[] {
  return terms.map(({ column, direction }) => (direction === "desc" ? desc(column) : asc(column)));
}

/**
 * ORDER BY terms for `window.sort`, with `tieBreaker` (the id) last so that pages never overlap.
 * The names were validated against the same `columns` by the route's schema.
 */
export function orderByOf<F extends string>(
  window: Pick<ListWindow<F>, "sort">,
  columns: Record<F, AnyColumn>,
  tieBreaker: AnyColumn,
): SQL[] {
  return orderByTerms(sortTermsOf(window, columns, byId(tieBreaker)));
}

/**
 * The rows that come after `last` in the order `terms` gives (`ORDER BY` of the same terms),
 * for reading a list chunk by chunk without OFFSET. A row is after `last` when it ties with it on
 * the first i terms and comes after it on term i+1; NULLs sit where each database puts them
 * (SQLite: smallest, first ascending; Postgres: largest, last ascending), so that the predicate
 * keeps exactly the rows ORDER BY puts after `last`. The comparison runs in SQL, so text compares
 * by the database's own collation, as ORDER BY does.
 */
export function keysetAfter<Row>(
  terms: readonly SortTerm<Row>[],
  last: Row,
  dialect: "sqlite" | "postgres",
): SQL {
  const ties: SQL[] = [];
  const branches: SQL[] = [];
  for (const term of terms) {
    const value = term.valueIn(last);
    const nullsFirst = (dialect === "sqlite") === (term.direction === "asc");
    branches.push(and(...ties, after(term, value, nullsFirst)) as SQL);
    ties.push(value === null || value === undefined ? isNull(term.column) : eq(term.column, value));
  }
  const predicate = or(...branches) as SQL;
  // The OR alone would make the database read the list from its start and filter every row
  // before `last` out on each chunk; a bound on the first term lets an index on it start there.
  const bound = firstTermBound(terms[0]!, terms[0]!.valueIn(last), dialect);
  return bound ? (and(bound, predicate) as SQL) : predicate;
}

/** Rows strictly after `value` on this one term. */
function after<Row>(term: SortTerm<Row>, value: unknown, nullsFirst: boolean): SQL {
  const { column, direction } = term;
  if (value === null || value === undefined) {
    // After a NULL come the values when NULLs come first, and nothing when they come last.
    return nullsFirst ? isNotNull(column) : falseOf(column);
  }
  const beyond = direction === "asc" ? gt(column, value) : lt(column, value);
  return nullsFirst ? beyond : (or(beyond, isNull(column)) as SQL);
}

/** A predicate no row meets (`column IS NULL AND column IS NOT NULL`), in plain SQL of both dialects. */
function falseOf(column: AnyColumn): SQL {
  return and(isNull(column), isNotNull(column)) as SQL;
}

/** The rows at or after `value` on the first term, when that is a range an index can start from. */
function firstTermBound<Row>(
  term: SortTerm<Row>,
  value: unknown,
  dialect: "sqlite" | "postgres",
): SQL | undefined {
  const nullsFirst = (dialect === "sqlite") === (term.direction === "asc");
  if (value === null || value === undefined) return nullsFirst ? undefined : isNull(term.column);
  // With NULLs last, the NULLs come after any value: no single range holds all that follows.
  if (!nullsFirst && !term.column.notNull) return undefined;
  return term.direction === "asc" ? gte(term.column, value) : lte(term.column, value);
}

/** Applies a page's LIMIT/OFFSET to a dynamic query; a whole list has neither. */
export function paged<Q extends { limit(n: number): { offset(n: number): unknown } }>(
  query: Q,
  window: Pick<ListWindow, "limit" | "offset">,
): Q {
  if (window.limit !== undefined) query.limit(window.limit).offset(window.offset ?? 0);
  return query;
}
