// Prepared statements shared by both dialects: the hot reads (the session of every authenticated
// request, the records behind the reader's views) build their SQL once, not per request.
import type { Database } from "#db";
import { readSnapshotOf } from "./read-snapshot";
import { rowMapperOf, type Selection } from "./row-mapper";

/**
 * Drizzle's query builders take no name for `.prepare()` on SQLite and one on Postgres; this
 * calls it with a name either way (the SQLite builder ignores extra arguments).
 */
export function prepareNamed<Q extends { prepare: (...args: never[]) => unknown }>(query: Q, name: string) {
  const prepare = query.prepare as unknown as (this: Q, name: string) => ReturnType<Q["prepare"]>;
  return prepare.call(query, name);
}

/**
 * One prepared statement per query builder: a Postgres transaction brings its own builder, and a
 * statement prepared on another would run outside the transaction; on SQLite the reader and the
 * writer (every transaction's builder) each have theirs.
 */
export function preparedPer<S>(build: (db: Database) => S): (db: Database) => S {
  const statements = new WeakMap<object, S>();
  return (db) => {
    let statement = statements.get(db.orm);
    if (statement === undefined) {
      statement = build(db);
      statements.set(db.orm, statement);
    }
    return statement;
  };
}

/** A statement Drizzle has prepared: `execute()` gives its mapped rows on either dialect. */
interface PreparedStatement {
  execute(placeholders?: Record<string, unknown>): PromiseLike<unknown> | { sync(): unknown };
}

/** The rows a prepared statement's `execute()` gives. */
type RowsOf<P extends PreparedStatement> =
  Awaited<ReturnType<P["execute"]>> extends readonly (infer Row)[] ? Row : never;

/** A prepared statement with the mapper of its value arrays (row-mapper.ts). */
export interface PreparedRows<Row> {
  statement: PreparedStatement;
  mapRow: (values: unknown[]) => Row;
}

/**
 * prepareNamed for a statement whose rows are read often: `selection` is what it selects (or
 * returns), in the order the query names it, for the mapper rowsOf uses on SQLite.
 */
export function prepareRows<Q extends { prepare: (...args: never[]) => PreparedStatement }>(
  query: Q,
  name: string,
  selection: Selection,
): PreparedRows<RowsOf<ReturnType<Q["prepare"]>>> {
  // The mapper builds what Drizzle would for this selection (test/db/row-mapper.test.ts): its rows.
  const mapRow = rowMapperOf(selection) as (values: unknown[]) => RowsOf<ReturnType<Q["prepare"]>>;
  return { statement: prepareNamed(query, name), mapRow };
}

/**
 * The rows of a prepared statement. On SQLite, bun:sqlite answers synchronously: the value
 * arrays (Drizzle's `values()`), read in the turn's read snapshot (read-snapshot.ts) when `db` is
 * the reader's handle (a write's statement runs on the handle its transaction gave), and built
 * into rows by the statement's own mapper rather than by Drizzle's generic one, and no promise.
 * On Postgres the rows come over the network, where Drizzle's mapping is a small part of their
 * time: `execute()` as it is.
 */
export function rowsOf<Row>(
  db: Database,
  prepared: PreparedRows<Row>,
  placeholders: Record<string, unknown> = {},
): Row[] | Promise<Row[]> {
  const { statement, mapRow } = prepared;
  if (db.dialect === "sqlite") {
    readSnapshotOf(db)?.enter();
    const values = (statement as unknown as SqliteValues).values(placeholders);
    return values.map(mapRow);
  }
  return statement.execute(placeholders) as Promise<Row[]>;
}

/** Drizzle's SQLite prepared statements also give their rows as value arrays. */
interface SqliteValues {
  values(placeholders: Record<string, unknown>): unknown[][];
}
