// reading_progress rows (README "Reading progress"): one per (user, book), shared by the API's
// Locator clients and KOReader's sync. A write is one upsert on the (user_uuid, book_id) key.
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite } from "../db/transaction";

export type ReadingProgressRow = Database["tables"]["readingProgress"]["$inferSelect"];
export type ReadingProgressFields = Omit<ReadingProgressRow, "id">;

/** The caller's position in the book, or undefined: one read of the (user, book) key. */
export async function findReadingProgress(
  db: Database,
  userUuid: string,
  bookId: number,
): Promise<ReadingProgressRow | undefined> {
  const { readingProgress } = db.tables;
  const [row] = await db.orm
    .select()
    .from(readingProgress)
    // (user, book) is unique: no `.limit(1)`, whose bound LIMIT costs SQLite a re-prepare.
    .where(and(eq(readingProgress.userUuid, userUuid), eq(readingProgress.bookId, bookId)));
  return row;
}

/**
 * Inserts the position, or replaces the stored one unless that one is newer (its updated_at
 * after `fields.updatedAt`: another device moved on). One statement, INSERT … ON CONFLICT DO
 * UPDATE … WHERE, in either database; undefined when the stored row was newer and stays.
 */
export async function upsertReadingProgress(
  db: Database,
  fields: ReadingProgressFields,
): Promise<ReadingProgressRow | undefined> {
  const { readingProgress } = db.tables;
  const { userUuid: _user, bookId: _book, ...replaced } = fields;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .insert(readingProgress)
      .values(fields)
      .onConflictDoUpdate({
        target: [readingProgress.userUuid, readingProgress.bookId],
        set: replaced,
        setWhere: sql`${readingProgress.updatedAt} <= excluded.updated_at`,
      })
      .returning(),
  );
  return rows[0];
}
