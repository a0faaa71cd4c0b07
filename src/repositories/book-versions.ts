import { and, count, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { Database } from "#db";
import { orderByOf, paged } from "../db/order-by";
import { queuedWrite } from "../db/transaction";
import type { ListWindow } from "../lib/sort-and-page";

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

export function bookVersionSortColumns({ bookVersion }: Database["tables"]) {
  return {
    id: bookVersion.id,
    bookId: bookVersion.bookId,
    versionCode: bookVersion.versionCode,
    createdAt: bookVersion.createdAt,
  } satisfies Record<BookVersionSortField, unknown>;
}

/** Every version, or those of `bookId`. */
export async function listBookVersions(
  db: Database,
  window: ListWindow<BookVersionSortField>,
  bookId?: number,
): Promise<BookVersionRow[]> {
  const { bookVersion } = db.tables;
  const orderBy = orderByOf(window, bookVersionSortColumns(db.tables), bookVersion.id);
  return paged(
    db.orm
      .select()
      .from(bookVersion)
      .where(bookId === undefined ? undefined : eq(bookVersion.bookId, bookId))
      .orderBy(...orderBy)
      .$dynamic(),
    window,
  );
}

export async function countBookVersions(db: Database, bookId?: number): Promise<number> {
  const { bookVersion } = db.tables;
  const [row] = await db.orm
    .select({ n: count() })
    .from(bookVersion)
    .where(bookId === undefined ? undefined : eq(bookVersion.bookId, bookId));
  return Number(row?.n ?? 0);
}

export async function findBookVersion(db: Database, id: number): Promise<BookVersionRow | undefined> {
  const { bookVersion } = db.tables;
  const [row] = await db.orm.select().from(bookVersion).where(eq(bookVersion.id, id));
  return row;
}

export async function insertBookVersion(
  db: Database,
  fields: BookVersionFields,
  now: Date,
): Promise<BookVersionRow> {
  const [row] = await queuedWrite(db, () =>
    db.orm
      .insert(db.tables.bookVersion)
      .values({ ...fields, createdAt: now, updatedAt: now })
      .returning(),
  );
  return row!;
}

export async function updateBookVersion(
  db: Database,
  id: number,
  fields: Partial<BookVersionFields & ArchiveFields>,
  now: Date,
): Promise<BookVersionRow | undefined> {
  const { bookVersion } = db.tables;
  const [row] = await queuedWrite(db, () =>
    db.orm
      .update(bookVersion)
      .set({ ...fields, updatedAt: now })
      .where(eq(bookVersion.id, id))
      .returning(),
  );
  return row;
}

export async function deleteBookVersion(db: Database, id: number): Promise<BookVersionRow | undefined> {
  const { bookVersion } = db.tables;
  const [row] = await queuedWrite(db, () =>
    db.orm.delete(bookVersion).where(eq(bookVersion.id, id)).returning(),
  );
  return row;
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

/**
 * The newest version of each of `bookIds` (of every book when undefined) in one query (no query per book): the versions with
 * an archive whose versionCode is the highest of their book.
 */
export async function findNewestVersions(
  db: Database,
  bookIds?: number[],
): Promise<Map<number, BookVersionRow>> {
  if (bookIds?.length === 0) return new Map();
  const { bookVersion } = db.tables;
  const rows = await db.orm
    .select()
    .from(bookVersion)
    .where(
      and(
        bookIds ? inArray(bookVersion.bookId, bookIds) : undefined,
        isNotNull(bookVersion.archiveSha256),
        sql`${bookVersion.versionCode} = (SELECT max(newer.version_code) FROM book_version newer WHERE newer.book_id = ${bookVersion.bookId} AND newer.archive_sha256 IS NOT NULL)`,
      ),
    );
  return new Map(rows.map((row) => [row.bookId, row]));
}
