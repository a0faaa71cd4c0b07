import { and, asc, desc, eq, gt, isNotNull, isNull, type SQL } from "drizzle-orm";
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
  archiveFormat: "epub" | "zip";
  /** JSON of storage/epub.ts EpubMetadata; null for a zip. */
  archiveEpub: string | null;
  /** KOReader's partial MD5 of the archive (storage/partial-md5.ts). */
  archivePartialMd5: string;
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

/** A stored archive lacking a field derived from its bytes (stored before the field was kept). */
export interface ArchiveRow {
  id: number;
  archiveSha256: string;
  archiveSize: number;
}

/** The derived fields a backfill fills in (jobs/archive-backfill.ts). */
export type ArchiveMissing = "archiveFormat" | "archivePartialMd5";

/**
 * Up to `limit` versions after `afterId`, by id, whose archive is stored but lacks `missing`: one
 * slice of a backfill, read through the partial index on that field (book_version_unrecognised_idx,
 * book_version_no_partial_md5_idx).
 */
export async function listArchivesMissing(
  db: Database,
  missing: ArchiveMissing,
  afterId: number,
  limit: number,
): Promise<ArchiveRow[]> {
  const { bookVersion } = db.tables;
  const rows = await db.orm
    .select({
      id: bookVersion.id,
      archiveSha256: bookVersion.archiveSha256,
      archiveSize: bookVersion.archiveSize,
    })
    .from(bookVersion)
    .where(
      and(isNull(bookVersion[missing]), isNotNull(bookVersion.archiveSha256), gt(bookVersion.id, afterId)),
    )
    .orderBy(asc(bookVersion.id))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    archiveSha256: row.archiveSha256!,
    archiveSize: row.archiveSize ?? 0,
  }));
}

/**
 * Records the format of the archive `sha256` unless the version has since got another archive or
 * a format (an upload during the backfill wins); updatedAt stays, as no field the admin wrote
 * changed. True when the row was written.
 */
export async function recordArchiveFormat(
  db: Database,
  id: number,
  sha256: string,
  fields: Pick<ArchiveFields, "archiveFormat" | "archiveEpub">,
): Promise<boolean> {
  const { bookVersion } = db.tables;
  const updated = await db.orm
    .update(bookVersion)
    .set(fields)
    .where(
      and(eq(bookVersion.id, id), eq(bookVersion.archiveSha256, sha256), isNull(bookVersion.archiveFormat)),
    )
    .returning({ id: bookVersion.id });
  return updated.length > 0;
}

/**
 * Records the partial MD5 of the archive `sha256` unless the version has since got another
 * archive (an upload during the backfill wins, with its own); updatedAt stays. True when written.
 */
export async function recordArchivePartialMd5(
  db: Database,
  id: number,
  sha256: string,
  partialMd5: string,
): Promise<boolean> {
  const { bookVersion } = db.tables;
  const updated = await db.orm
    .update(bookVersion)
    .set({ archivePartialMd5: partialMd5 })
    .where(
      and(
        eq(bookVersion.id, id),
        eq(bookVersion.archiveSha256, sha256),
        isNull(bookVersion.archivePartialMd5),
      ),
    )
    .returning({ id: bookVersion.id });
  return updated.length > 0;
}

/**
 * The newest version, of a book `userUuid` holds, whose archive has KOReader's `document` id
 * (README "Reading progress"); undefined when none. One indexed read: the partial MD5's index,
 * then the activation's (user, book) key.
 */
export async function findHeldVersionByPartialMd5(
  db: Database,
  userUuid: string,
  partialMd5: string,
): Promise<{ id: number; bookId: number } | undefined> {
  const { bookVersion, activation } = db.tables;
  const [row] = await db.orm
    .select({ id: bookVersion.id, bookId: bookVersion.bookId })
    .from(bookVersion)
    .innerJoin(activation, and(eq(activation.bookId, bookVersion.bookId), eq(activation.userUuid, userUuid)))
    .where(eq(bookVersion.archivePartialMd5, partialMd5))
    .orderBy(desc(bookVersion.id))
    .limit(1);
  return row;
}
