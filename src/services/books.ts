// The rules of books: existence, and that a book readers hold cannot be deleted.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { ListRead, ListWindow } from "../lib/list-window";
import { AppError, validationFailed } from "../lib/problems";
import * as books from "../repositories/books";
import { type AuditSource, recordChange } from "./audit";
import { found } from "./guards";
import { pageOf } from "./page";

export function listBooks(
  db: Database,
  window: ListWindow<books.BookSortField>,
): Promise<ListRead<books.BookRow>> {
  return pageOf(db, window, books.listBooks, books.countBooks);
}

/** The console's book search: titles starting with `prefix`, one page (README "Console"). */
export function searchBooksByTitle(
  db: Database,
  prefix: string,
  limit: number,
  offset: number,
): Promise<books.BookRow[]> {
  return books.listBooksByTitlePrefix(db, prefix, limit, offset);
}

export function countBooks(db: Database): Promise<number> {
  return books.countBooks(db);
}

export async function getBook(db: Database, id: number): Promise<books.BookRow> {
  return found(await books.findBook(db, id), `Book ${id}`);
}

/** A book named in a request body must exist: an unknown one is a 400 VALIDATION_FAILED. */
export async function assertBookExists(db: Database, bookId: number): Promise<void> {
  if (!(await books.findBook(db, bookId))) throw validationFailed("bookId", `book ${bookId} does not exist`);
}

/**
 * `read` of what lies under a book (its versions, codes, batches, activations), for a book that
 * must exist: an unknown book is a 404, not an empty list.
 */
export function ofExistingBook<Rest extends unknown[], Result>(
  read: (db: Database, bookId: number, ...rest: Rest) => Promise<Result>,
): (db: Database, bookId: number, ...rest: Rest) => Promise<Result> {
  return async (db, bookId, ...rest) => {
    await getBook(db, bookId);
    return read(db, bookId, ...rest);
  };
}

export function createBook(
  db: Database,
  by: AuditSource,
  fields: books.BookFields,
  now: Date,
): Promise<books.BookRow> {
  return withTransaction(db, async (tx) => {
    const book = await books.insertBook(tx, fields, now);
    await recordChange(tx, by, now, "book", "create", book.id, null, book);
    return book;
  });
}

export async function replaceBook(
  db: Database,
  by: AuditSource,
  id: number,
  fields: books.BookFields,
  now: Date,
): Promise<books.BookRow> {
  return withTransaction(db, async (tx) => {
    const before = await getBook(tx, id);
    const book = found(await books.updateBook(tx, id, fields, now), `Book ${id}`);
    await recordChange(tx, by, now, "book", "update", id, before, book);
    return book;
  });
}

/**
 * Deletes a book with its versions and QR codes (foreign keys cascade); its files become
 * unreferenced and go with the blob cleanup job. Refused while readers hold the book.
 */
export async function removeBook(
  db: Database,
  by: AuditSource,
  id: number,
  now: Date,
): Promise<books.BookRow> {
  return withTransaction(db, async (tx) => {
    const book = await getBook(tx, id);
    const held = await books.countActivationsOfBook(tx, id);
    if (held > 0) throw new AppError("CONFLICT", `Book ${id} has ${held} activation(s); delete them first.`);
    await books.deleteBook(tx, id);
    await recordChange(tx, by, now, "book", "delete", id, book, null);
    return book;
  });
}
