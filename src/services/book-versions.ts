// The rules of book versions: the book must exist, versionCode is unique per book.
import type { Database } from "#db";
import { isUniqueViolation } from "../db/errors";
import { AppError, notFound, validationFailed } from "../lib/problems";
import type { ListWindow, Page } from "../lib/sort-and-page";
import * as versions from "../repositories/book-versions";
import { findBook } from "../repositories/books";
import { getBook } from "./books";
import { pageOf } from "./page";

export type { BookVersionRow } from "../repositories/book-versions";

export function listBookVersions(
  db: Database,
  window: ListWindow<versions.BookVersionSortField>,
): Promise<Page<versions.BookVersionRow>> {
  return pageOf(
    window,
    () => versions.listBookVersions(db, window),
    () => versions.countBookVersions(db),
  );
}

/** The versions of one book; 404 when there is no such book (not an empty list). */
export async function listVersionsOfBook(
  db: Database,
  bookId: number,
  window: ListWindow<versions.BookVersionSortField>,
): Promise<Page<versions.BookVersionRow>> {
  await getBook(db, bookId);
  return pageOf(
    window,
    () => versions.listBookVersions(db, window, bookId),
    () => versions.countBookVersions(db, bookId),
  );
}

export function countBookVersions(db: Database): Promise<number> {
  return versions.countBookVersions(db);
}

export async function getBookVersion(db: Database, id: number): Promise<versions.BookVersionRow> {
  const version = await versions.findBookVersion(db, id);
  if (!version) throw notFound(`Book version ${id}`);
  return version;
}

async function assertBookExists(db: Database, bookId: number): Promise<void> {
  if (!(await findBook(db, bookId))) throw validationFailed("bookId", `book ${bookId} does not exist`);
}

function duplicateCode(fields: versions.BookVersionFields) {
  return (error: unknown): never => {
    if (isUniqueViolation(error)) {
      throw new AppError(
        "CONFLICT",
        `Book ${fields.bookId} already has a version with versionCode ${fields.versionCode}.`,
      );
    }
    throw error;
  };
}

export async function createBookVersion(db: Database, fields: versions.BookVersionFields, now: Date) {
  await assertBookExists(db, fields.bookId);
  return versions.insertBookVersion(db, fields, now).catch(duplicateCode(fields));
}

export async function replaceBookVersion(
  db: Database,
  id: number,
  fields: versions.BookVersionFields,
  now: Date,
) {
  await getBookVersion(db, id);
  await assertBookExists(db, fields.bookId);
  const updated = await versions.updateBookVersion(db, id, fields, now).catch(duplicateCode(fields));
  if (!updated) throw notFound(`Book version ${id}`);
  return updated;
}

/** Deletes the version; its archive, no longer referenced, goes with the blob cleanup job. */
export async function removeBookVersion(db: Database, id: number) {
  const deleted = await versions.deleteBookVersion(db, id);
  if (!deleted) throw notFound(`Book version ${id}`);
  return deleted;
}

/** The newest version of the book (API.md §4: the highest versionCode with an archive); 404 if none. */
export async function getNewestVersion(db: Database, bookId: number): Promise<versions.BookVersionRow> {
  const newest = await versions.findNewestVersion(db, bookId);
  if (!newest) throw notFound(`A version of book ${bookId} with an archive`);
  return newest;
}
