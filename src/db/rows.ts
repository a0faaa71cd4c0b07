// What every resource's repository does with its own table: insert a row; find, update or delete
// one by id; count; list a window of them; and the prepared look-ups of the hot reads. Each is one
// statement, and the writes go through queuedWrite (the door) like every other write.
import {
  type AnyColumn,
  and,
  asc,
  count,
  desc,
  eq,
  getTableColumns,
  gte,
  lte,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Database } from "#db";
import type { BoundedCount, ListWindow } from "../lib/list-window";
import { byId, orderByTerms, paged, readAfter, type SortTerm, sortTermsOf } from "./order-by";
import { pageReadOf } from "./page-read";
import { preparedPer, prepareRows, rowsOf } from "./prepared";
import { countedRows, isCounted } from "./row-counts";
import { queuedWrite } from "./transaction";

type Tables = Database["tables"];
type AnyTable = Tables[keyof Tables];

/** The tables keyed by a numeric `id`. */
type KeyedTable = {
  [K in keyof Tables]: Tables[K]["$inferSelect"] extends { id: number } ? Tables[K] : never;
}[keyof Tables];
type RowOf<T extends AnyTable> = T["$inferSelect"];
type InsertOf<T extends AnyTable> = T["$inferInsert"];
/** A list sorts by the names of its table's columns. */
type ColumnOf<T extends AnyTable> = keyof T["_"]["columns"] & string;

/** The part of Drizzle's query builder the helpers use, for a table whose rows are `Row`. */
interface RowQueries<Row, Insert> {
  insert(table: AnyTable): { values(values: Insert): Returning<Row> };
  update(table: AnyTable): { set(fields: Partial<Insert>): { where(condition: SQL): Returning<Row> } };
  delete(table: AnyTable): { where(condition: SQL): Returning<Row> };
  select(): { from(table: AnyTable): { where(condition: SQL | undefined): Selection<Row> } };
}
interface Returning<Row> {
  returning(): Promise<Row[]>;
}
interface Selection<Row> extends Promise<Row[]> {
  orderBy(...terms: SQL[]): { $dynamic(): Paged<Row> };
  prepare(name: string): { execute(values: Record<string, unknown>): PromiseLike<Row[]> | { sync(): Row[] } };
}
interface Paged<Row> extends Promise<Row[]> {
  limit(limit: number): { offset(offset: number): unknown };
}

/**
 * Drizzle types its builders per table, which TypeScript cannot work out for a table that is a type
 * parameter `T`; for every concrete table they take `T`'s inserts and answer `T`'s rows, as this says.
 */
function queriesOf<T extends AnyTable>(db: Database): RowQueries<RowOf<T>, InsertOf<T>> {
  return db.orm as unknown as RowQueries<RowOf<T>, InsertOf<T>>;
}

/** INSERT … RETURNING: the row as stored. */
export async function insertRow<T extends AnyTable>(
  db: Database,
  table: T,
  values: InsertOf<T>,
): Promise<RowOf<T>> {
  const [row] = await queuedWrite(db, (tx) => queriesOf<T>(tx).insert(table).values(values).returning());
  return row!;
}

/** The row with this id, or undefined. */
export async function findById<T extends KeyedTable>(
  db: Database,
  table: T,
  id: number,
): Promise<RowOf<T> | undefined> {
  // A key lookup needs no `.limit(1)` (a bound LIMIT costs SQLite a re-prepare).
  const [row] = await queriesOf<T>(db).select().from(table).where(eq(table.id, id));
  return row;
}

/**
 * A look-up of one row of `table` by `key`, a unique column, prepared once per query builder (as
 * `name` on Postgres): for the hot reads. No `.limit(1)`: a bound LIMIT costs SQLite a re-prepare.
 */
export function preparedFindBy<
  N extends keyof Tables,
  K extends ColumnOf<Tables[N]> & keyof RowOf<Tables[N]>,
>(
  table: N,
  key: K,
  name: string,
): (db: Database, value: RowOf<Tables[N]>[K]) => Promise<RowOf<Tables[N]> | undefined> {
  const statement = preparedPer((db) => {
    const columns: Record<string, AnyColumn> = getTableColumns(db.tables[table]);
    const query = queriesOf<Tables[N]>(db)
      .select()
      .from(db.tables[table])
      .where(eq(columns[key]!, sql.placeholder("value")));
    return prepareRows(query, name, db.tables[table]);
  });
  return async (db, value) => {
    const [row] = await rowsOf(db, statement(db), { value });
    return row;
  };
}

/** UPDATE … WHERE id RETURNING: the updated row, or undefined when there is no such id. */
export async function updateById<T extends KeyedTable>(
  db: Database,
  table: T,
  id: number,
  fields: Partial<InsertOf<T>>,
): Promise<RowOf<T> | undefined> {
  const [row] = await queuedWrite(db, (tx) =>
    queriesOf<T>(tx).update(table).set(fields).where(eq(table.id, id)).returning(),
  );
  return row;
}

/** DELETE … WHERE id RETURNING: the deleted row, or undefined when there is no such id. */
export async function deleteById<T extends KeyedTable>(
  db: Database,
  table: T,
  id: number,
): Promise<RowOf<T> | undefined> {
  const [row] = await queuedWrite(db, (tx) =>
    queriesOf<T>(tx).delete(table).where(eq(table.id, id)).returning(),
  );
  return row;
}

/**
 * How many rows the table has, or how many of them `where` keeps: a whole counted table from its
 * counter (row-counts.ts), a filtered count from the index on its filter.
 */
export async function countRows(db: Database, table: AnyTable, where?: SQL): Promise<number> {
  if (where === undefined && isCounted(table)) return countedRows(db, table);
  const [row] = await db.orm.select({ n: count() }).from(table).where(where);
  return Number(row?.n ?? 0);
}

/**
 * countRows, but a filtered count stops after `bound` + 1 rows of the filter's index: a count of
 * at most that many entries, whatever the table's size (the console's lists, which then say "more
 * than `bound`"). A whole counted table is still exact, from its counter.
 */
export async function countRowsUpTo(
  db: Database,
  table: AnyTable,
  where: SQL | undefined,
  bound: number,
): Promise<BoundedCount> {
  if (where === undefined && isCounted(table)) return { count: await countedRows(db, table), more: false };
  const kept = db.orm
    .select({ one: sql<number>`1`.as("one") })
    .from(table)
    .where(where)
    .limit(bound + 1)
    .as("kept");
  const [row] = await db.orm.select({ n: count() }).from(kept);
  const n = Number(row?.n ?? 0);
  return n > bound ? { count: bound, more: true } : { count: n, more: false };
}

/**
 * The rows of one value of a column that leads the indexes of a list's orders: a book's codes or
 * activations, read from (book_id, field, id) indexes.
 */
export interface RowGroup {
  column: AnyColumn;
  value: number;
}

/**
 * A group's filter and the first term of its ORDER BY, in the direction of the list's first term.
 * Postgres treats a column held equal to a constant as already sorted, so with `book_id = 1` an
 * ORDER BY id is one the primary key also serves, and the planner prices that scan as if the
 * book's rows were spread evenly over the ids (a share of them per page's worth of ids). A print
 * run's codes and their activations lie together, often at the end of the ids (issue 41): that
 * scan then reads the whole table for a page. Written on Postgres as a range of one value, the
 * column is not constant to the planner, so ORDER BY book_id, field, id is served by a (book_id,
 * field, id) index read in order (a keyset's `id > last` still seeks: a btree scan starts from
 * `>=` and the next column's bound), or by a sort of what a narrower bound keeps, never by an index
 * that lacks book_id. SQLite's planner takes a book's index for equality already, and a range
 * there would stop its index seek at book_id (a keyset chunk would scan the book from its start),
 * so it keeps `=`. test/db/book-list-plans.test.ts checks both databases' plans.
 */
function groupOrder(db: Database, group: RowGroup, first: SortTerm<never>): { where: SQL; leading: SQL[] } {
  const { column, value } = group;
  const where =
    db.dialect === "postgres" ? (and(gte(column, value), lte(column, value)) as SQL) : eq(column, value);
  return { where, leading: [first.direction === "desc" ? desc(column) : asc(column)] };
}

/**
 * The rows `where` keeps (all without it), in the window's order (then by id) and page; a page
 * past the middle of a counted list is read from its end (page-read.ts). With `after` (the last
 * row of the previous chunk), the rows that follow it in that order: a whole list read chunk by
 * chunk by keyset, never by a growing OFFSET. With `group`, only that group's rows (groupOrder).
 */
export async function listRows<T extends KeyedTable>(
  db: Database,
  table: T,
  window: ListWindow<ColumnOf<T>>,
  where?: SQL,
  after?: RowOf<T>,
  group?: RowGroup,
): Promise<RowOf<T>[]> {
  const columns: Record<string, AnyColumn> = getTableColumns(table);
  // A term on a column already ordered by (`sort=id` and the id tie-breaker; the group's column,
  // the same in every row of the group) orders nothing, and in a keyset it would be a branch of
  // its own (an empty one, or for the group's column an equality that lets Postgres's planner
  // treat it as constant again: groupOrder).
  const termsOf = (order: Pick<ListWindow<string>, "sort">) =>
    sortTermsOf<string, RowOf<T>>(order, columns, byId(table.id) as SortTerm<RowOf<T>>).filter(
      (term, index, terms) =>
        term.column !== group?.column && terms.findIndex((other) => other.column === term.column) === index,
    );
  const read = (
    terms: SortTerm<RowOf<T>>[],
    keyset: SQL | undefined,
    slice: Pick<ListWindow, "limit" | "offset">,
  ) => {
    const grouped = group && groupOrder(db, group, terms[0] as SortTerm<never>);
    return paged(
      queriesOf<T>(db)
        .select()
        .from(table)
        .where(and(grouped?.where, where, keyset))
        .orderBy(...(grouped?.leading ?? []), ...orderByTerms(terms))
        .$dynamic(),
      slice,
    );
  };
  if (after !== undefined) {
    const terms = termsOf(window);
    return readAfter(terms, after, db.dialect, window.limit, (keyset, limit) =>
      read(terms, keyset, { limit }),
    );
  }
  const page = pageReadOf(window);
  const rows = await read(termsOf(page), undefined, page);
  return page.reversed ? rows.reverse() : rows;
}
