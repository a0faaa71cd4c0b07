import { and, asc, eq, gte, lt } from "drizzle-orm";
import type { Database } from "#db";
import { countRows, deleteById, insertRow, listRows, preparedFindBy, updateById } from "../db/rows";
import type { ListWindow } from "../lib/list-window";

export type BookRow = Database["tables"]["book"]["$inferSelect"];
export type BookFields = Pick<BookRow, "title" | "author" | "isbn" | "description" | "language">;

export const bookSortFields = ["id", "title", "author", "createdAt", "updatedAt"] as const;
export type BookSortField = (typeof bookSortFields)[number];

/** A window of the books; `after`: the previous chunk's last book (db/rows.ts listRows). */
export function listBooks(
  db: Database,
  window: ListWindow<BookSortField>,
  after?: BookRow,
): Promise<BookRow[]> {
  return listRows(db, db.tables.book, window, undefined, after);
}

export function countBooks(db: Database): Promise<number> {
  return countRows(db, db.tables.book);
}

/**
 * Books whose title starts with `prefix` (as typed: case counts), by title: a range on
 * book_title_idx, `limit` rows from `offset` (the console's search reads one page).
 */
export function listBooksByTitlePrefix(
  db: Database,
  prefix: string,
  limit: number,
  offset: number,
): Promise<BookRow[]> {
  const { book } = db.tables;
  return db.orm
    .select()
    .from(book)
    .where(and(gte(book.title, prefix), lt(book.title, `${prefix}\u{10FFFF}`)))
    .orderBy(asc(book.title), asc(book.id))
    .limit(limit)
    .offset(offset);
}

// A hot read (GET /book/{id}, and every check that a book exists): prepared, built only once.
const bookById = preparedFindBy("book", "id", "find_book");

export function findBook(db: Database, id: number): Promise<BookRow | undefined> {
  return bookById(db, id);
}

export function insertBook(db: Database, fields: BookFields, now: Date): Promise<BookRow> {
  return insertRow(db, db.tables.book, { ...fields, createdAt: now, updatedAt: now });
}

export function updateBook(
  db: Database,
  id: number,
  fields: Partial<BookRow>,
  now: Date,
): Promise<BookRow | undefined> {
  return updateById(db, db.tables.book, id, { ...fields, updatedAt: now });
}

export function deleteBook(db: Database, id: number): Promise<BookRow | undefined> {
  return deleteById(db, db.tables.book, id);
}

export function countActivationsOfBook(db: Database, bookId: number): Promise<number> {
  const { activation } = db.tables;
  return countRows(db, activation, eq(activation.bookId, bookId));
}
