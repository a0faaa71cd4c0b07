import { count, eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";

export type BookRow = Database["tables"]["book"]["$inferSelect"];
export type BookFields = Pick<BookRow, "title" | "author" | "isbn" | "description" | "language">;

export async function listBooks(
  db: Database,
  options: { orderBy: SQL[]; limit?: number; offset?: number },
): Promise<BookRow[]> {
  const { book } = db.tables;
  const query = db.orm
    .select()
    .from(book)
    .orderBy(...options.orderBy)
    .$dynamic();
  if (options.limit !== undefined) query.limit(options.limit).offset(options.offset ?? 0);
  return query;
}

export async function countBooks(db: Database): Promise<number> {
  const [row] = await db.orm.select({ n: count() }).from(db.tables.book);
  return Number(row?.n ?? 0);
}

/**
 * Drizzle's query builders take no name for `.prepare()` on SQLite and one on Postgres; this
 * calls it with a name either way (the SQLite builder ignores extra arguments).
 */
function prepareNamed<Q extends { prepare: (...args: never[]) => unknown }>(query: Q, name: string) {
  const prepare = query.prepare as unknown as (this: Q, name: string) => ReturnType<Q["prepare"]>;
  return prepare.call(query, name);
}

/**
 * One prepared statement per query builder: a Postgres transaction brings its own builder, and a
 * statement prepared on another would run outside the transaction.
 */
function preparedPer<S>(build: (db: Database) => S): (db: Database) => S {
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

// A hot read (GET /book/{id}, and every check that a book exists): prepared, built only once.
const findBookStatement = preparedPer((db) => {
  const { book } = db.tables;
  const query = db.orm
    .select()
    .from(book)
    // A key lookup needs no `.limit(1)` (a bound LIMIT costs SQLite a re-prepare; see sessions.ts).
    .where(eq(book.id, sql.placeholder("id")));
  return prepareNamed(query, "find_book");
});

export async function findBook(db: Database, id: number): Promise<BookRow | undefined> {
  const [row] = await findBookStatement(db).execute({ id });
  return row;
}

export async function insertBook(db: Database, fields: BookFields, now: Date): Promise<BookRow> {
  const [row] = await db.orm
    .insert(db.tables.book)
    .values({ ...fields, createdAt: now, updatedAt: now })
    .returning();
  return row!;
}

export async function updateBook(
  db: Database,
  id: number,
  fields: Partial<BookRow>,
  now: Date,
): Promise<BookRow | undefined> {
  const { book } = db.tables;
  const [row] = await db.orm
    .update(book)
    .set({ ...fields, updatedAt: now })
    .where(eq(book.id, id))
    .returning();
  return row;
}

export async function deleteBook(db: Database, id: number): Promise<BookRow | undefined> {
  const { book } = db.tables;
  const [row] = await db.orm.delete(book).where(eq(book.id, id)).returning();
  return row;
}

export async function countActivationsOfBook(db: Database, bookId: number): Promise<number> {
  const { activation } = db.tables;
  const [row] = await db.orm.select({ n: count() }).from(activation).where(eq(activation.bookId, bookId));
  return Number(row?.n ?? 0);
}
