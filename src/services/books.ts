// The rules of books: existence, and that a book readers hold cannot be deleted.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import { AppError, notFound } from "../lib/problems";
import type { ListWindow, Page } from "../lib/sort-and-page";
import * as books from "../repositories/books";
import { pageOf } from "./page";

export function listBooks(
  db: Database,
  window: ListWindow<books.BookSortField>,
): Promise<Page<books.BookRow>> {
  return pageOf(
    window,
    () => books.listBooks(db, window),
    () => books.countBooks(db),
  );
}

export function countBooks(db: Database): Promise<number> {
  return books.countBooks(db);
}

export async function getBook(db: Database, id: number): Promise<books.BookRow> {
  const book = await books.findBook(db, id);
  if (!book) throw notFound(`Book ${id}`);
  return book;
}

export function createBook(db: Database, fields: books.BookFields, now: Date): Promise<books.BookRow> {
  return books.insertBook(db, fields, now);
}

export async function replaceBook(
  db: Database,
  id: number,
  fields: books.BookFields,
  now: Date,
): Promise<books.BookRow> {
  const book = await books.updateBook(db, id, fields, now);
  if (!book) throw notFound(`Book ${id}`);
  return book;
}

/**
 * Deletes a book with its versions and QR codes (foreign keys cascade); its files become
 * unreferenced and go with the blob cleanup job. Refused while readers hold the book.
 */
export async function removeBook(db: Database, id: number): Promise<books.BookRow> {
  return withTransaction(db, async (tx) => {
    const book = await books.findBook(tx, id);
    if (!book) throw notFound(`Book ${id}`);
    const held = await books.countActivationsOfBook(tx, id);
    if (held > 0) throw new AppError("CONFLICT", `Book ${id} has ${held} activation(s); delete them first.`);
    await books.deleteBook(tx, id);
    return book;
  });
}
