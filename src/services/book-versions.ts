// The rules of book versions: the book must exist, versionCode is unique per book.
import type { Database } from "#db";
import type { ListWindow } from "../lib/list-window";
import * as versions from "../repositories/book-versions";
import { assertBookExists, ofExistingBook } from "./books";
import { conflictIfDuplicate, found } from "./guards";
import { pagedList } from "./page";

export type { BookVersionRow } from "../repositories/book-versions";

/** Every version, or those of the book whose id is the filter. */
export const listBookVersions = pagedList(versions.listBookVersions, versions.countBookVersions);

/** The versions of one book; 404 when there is no such book (not an empty list). */
export const listVersionsOfBook = ofExistingBook(
  (db, bookId, window: ListWindow<versions.BookVersionSortField>) => listBookVersions(db, window, bookId),
);

export function countBookVersions(db: Database): Promise<number> {
  return versions.countBookVersions(db);
}

export async function getBookVersion(db: Database, id: number): Promise<versions.BookVersionRow> {
  return found(await versions.findBookVersion(db, id), `Book version ${id}`);
}

const duplicateCode = (fields: versions.BookVersionFields) =>
  conflictIfDuplicate(`Book ${fields.bookId} already has a version with versionCode ${fields.versionCode}.`);

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
  return found(updated, `Book version ${id}`);
}

/** Deletes the version; its archive, no longer referenced, goes with the blob cleanup job. */
export async function removeBookVersion(db: Database, id: number) {
  return found(await versions.deleteBookVersion(db, id), `Book version ${id}`);
}

/** The newest version of the book (the highest versionCode with an archive); 404 if none. */
export async function getNewestVersion(db: Database, bookId: number): Promise<versions.BookVersionRow> {
  return found(await versions.findNewestVersion(db, bookId), `A version of book ${bookId} with an archive`);
}
