import { count, eq, sql } from "drizzle-orm";
import type { Database } from "#db";
import { orderByOf, paged } from "../db/order-by";
import { preparedPer, prepareNamed, rowsOf } from "../db/prepared";
import { queuedWrite } from "../db/transaction";
import type { ListWindow } from "../lib/sort-and-page";

export type BookRow = Database["tables"]["book"]["$inferSelect"];
export type BookFields = Pick<BookRow, "title" | "author" | "isbn" | "description" | "language">;

export const bookSortFields = ["id", "title", "author", "createdAt", "updatedAt"] as const;
export type BookSortField = (typeof bookSortFields)[number];

export function bookSortColumns({ book }: Database["tables"]) {
  return {
    id: book.id,
    title: book.title,
    author: book.author,
    createdAt: book.createdAt,
    updatedAt: book.updatedAt,
  } satisfies Record<BookSortField, unknown>;
}

export async function listBooks(db: Database, window: ListWindow<BookSortField>): Promise<BookRow[]> {
  const { book } = db.tables;
  const orderBy = orderByOf(window, bookSortColumns(db.tables), book.id);
  return paged(
    db.orm
      .select()
      .from(book)
      .orderBy(...orderBy)
      .$dynamic(),
    window,
  );
}

export async function countBooks(db: Database): Promise<number> {
  const [row] = await db.orm.select({ n: count() }).from(db.tables.book);
  return Number(row?.n ?? 0);
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
  const [row] = await rowsOf(findBookStatement(db).execute({ id }));
  return row;
}

export async function insertBook(db: Database, fields: BookFields, now: Date): Promise<BookRow> {
  const [row] = await queuedWrite(db, () =>
    db.orm
      .insert(db.tables.book)
      .values({ ...fields, createdAt: now, updatedAt: now })
      .returning(),
  );
  return row!;
}

export async function updateBook(
  db: Database,
  id: number,
  fields: Partial<BookRow>,
  now: Date,
): Promise<BookRow | undefined> {
  const { book } = db.tables;
  const [row] = await queuedWrite(db, () =>
    db.orm
      .update(book)
      .set({ ...fields, updatedAt: now })
      .where(eq(book.id, id))
      .returning(),
  );
  return row;
}

export async function deleteBook(db: Database, id: number): Promise<BookRow | undefined> {
  const { book } = db.tables;
  const [row] = await queuedWrite(db, () => db.orm.delete(book).where(eq(book.id, id)).returning());
  return row;
}

export async function countActivationsOfBook(db: Database, bookId: number): Promise<number> {
  const { activation } = db.tables;
  const [row] = await db.orm.select({ n: count() }).from(activation).where(eq(activation.bookId, bookId));
  return Number(row?.n ?? 0);
}
