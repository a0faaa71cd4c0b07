import { and, desc, eq, isNotNull, type SQL } from "drizzle-orm";
import type { Database } from "#db";
import { countRows, deleteById, findById, insertRow, listRows, updateById } from "../db/rows";
import type { ListWindow } from "../lib/list-window";

export type BookVersionRow = Database["tables"]["bookVersion"]["$inferSelect"];
export type BookVersionFields = Pick<
  BookVersionRow,
  "bookId" | "versionCode" | "versionName" | "releaseNotes"
>;
export interface ArchiveFields {
  archiveSha256: string;
  archiveSize: number;
  archiveFilename: string | null;
  archiveUploadedAt: Date;
}

export const bookVersionSortFields = ["id", "bookId", "versionCode", "createdAt"] as const;
export type BookVersionSortField = (typeof bookVersionSortFields)[number];

/** The versions of one book share their bookId, so it sorts nothing there. */
export const versionsOfBookSortFields = bookVersionSortFields.filter(
  (field): field is Exclude<BookVersionSortField, "bookId"> => field !== "bookId",
);

/** Which versions a list or count covers: all, or those of `bookId`. */
function whereOf(db: Database, bookId: number | undefined): SQL | undefined {
  return bookId === undefined ? undefined : eq(db.tables.bookVersion.bookId, bookId);
}

/** Every version, or those of `bookId`; `after`: the previous chunk's last (db/rows.ts listRows). */
export function listBookVersions(
  db: Database,
  window: ListWindow<BookVersionSortField>,
  bookId?: number,
  after?: BookVersionRow,
): Promise<BookVersionRow[]> {
  return listRows(db, db.tables.bookVersion, window, whereOf(db, bookId), after);
}

export function countBookVersions(db: Database, bookId?: number): Promise<number> {
  return countRows(db, db.tables.bookVersion, whereOf(db, bookId));
}

export function findBookVersion(db: Database, id: number): Promise<BookVersionRow | undefined> {
  return findById(db, db.tables.bookVersion, id);
}

export function insertBookVersion(
  db: Database,
  fields: BookVersionFields,
  now: Date,
): Promise<BookVersionRow> {
  return insertRow(db, db.tables.bookVersion, { ...fields, createdAt: now, updatedAt: now });
}

export function updateBookVersion(
  db: Database,
  id: number,
  fields: Partial<BookVersionFields & ArchiveFields>,
  now: Date,
): Promise<BookVersionRow | undefined> {
  return updateById(db, db.tables.bookVersion, id, { ...fields, updatedAt: now });
}

export function deleteBookVersion(db: Database, id: number): Promise<BookVersionRow | undefined> {
  return deleteById(db, db.tables.bookVersion, id);
}

/** The newest version (highest versionCode with an archive) of one book. */
export async function findNewestVersion(db: Database, bookId: number): Promise<BookVersionRow | undefined> {
  const { bookVersion } = db.tables;
  const [row] = await db.orm
    .select()
    .from(bookVersion)
    .where(and(eq(bookVersion.bookId, bookId), isNotNull(bookVersion.archiveSha256)))
    .orderBy(desc(bookVersion.versionCode))
    .limit(1);
  return row;
}
