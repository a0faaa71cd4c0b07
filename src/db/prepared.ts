// Prepared statements shared by both dialects: the hot reads (the session of every authenticated
// request, the records behind the reader's views) build their SQL once, not per request.
import type { Database } from "#db";

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
 * statement prepared on another would run outside the transaction.
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

/**
 * The rows of a prepared statement's `execute()`. On SQLite, bun:sqlite answers synchronously,
 * and Drizzle hands the rows over through `.sync()`; awaiting its QueryPromise instead costs an
 * async `execute` and two promise hops, on the session lookup of every authenticated request.
 * On Postgres the rows come over the network: the promise itself.
 */
export function rowsOf<T>(executed: PromiseLike<T> | { sync(): T }): T | PromiseLike<T> {
  return "sync" in executed ? executed.sync() : executed;
}
