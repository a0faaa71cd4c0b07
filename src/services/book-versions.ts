// The rules of book versions: the book must exist, versionCode is unique per book.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { ListWindow } from "../lib/list-window";
import * as versions from "../repositories/book-versions";
import { type AuditSource, recordChange } from "./audit";
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

export async function createBookVersion(
  db: Database,
  by: AuditSource,
  fields: versions.BookVersionFields,
  now: Date,
) {
  return withTransaction(db, async (tx) => {
    await assertBookExists(tx, fields.bookId);
    const version = await versions.insertBookVersion(tx, fields, now).catch(duplicateCode(fields));
    await recordChange(tx, by, now, "bookversion", "create", version.id, null, version);
    return version;
  });
}

export async function replaceBookVersion(
  db: Database,
  by: AuditSource,
  id: number,
  fields: versions.BookVersionFields,
  now: Date,
) {
  return withTransaction(db, async (tx) => {
    const before = await getBookVersion(tx, id);
    await assertBookExists(tx, fields.bookId);
    const updated = await versions.updateBookVersion(tx, id, fields, now).catch(duplicateCode(fields));
    const version = found(updated, `Book version ${id}`);
    await recordChange(tx, by, now, "bookversion", "update", id, before, version);
    return version;
  });
}

/** Deletes the version; its archive, no longer referenced, goes with the blob cleanup job. */
export async function removeBookVersion(db: Database, by: AuditSource, id: number, now: Date) {
  return withTransaction(db, async (tx) => {
    const version = found(await versions.deleteBookVersion(tx, id), `Book version ${id}`);
    await recordChange(tx, by, now, "bookversion", "delete", id, version, null);
    return version;
  });
}

/** The newest version of the book (the highest versionCode with an archive); 404 if none. */
export async function getNewestVersion(db: Database, bookId: number): Promise<versions.BookVersionRow> {
  return found(await versions.findNewestVersion(db, bookId), `A version of book ${bookId} with an archive`);
}
