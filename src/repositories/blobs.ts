// Blob rows: registered with the record that names them, claimed by the cleanup job once
// nothing names them. A per-blob lock orders an upload that re-registers a blob against a
// cleanup removing its file (see services/files.ts and jobs/blob-cleanup.ts).
import { and, eq, lte, notExists, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite } from "../db/transaction";

/**
 * Holds the blob's lock until the transaction ends. Postgres: a transaction-level advisory lock
 * (a hash collision only serialises two blobs). SQLite: the transaction's own write lock
 * (BEGIN IMMEDIATE) already excludes every other writer.
 */
export async function lockBlob(tx: Database, sha256: string): Promise<void> {
  if (tx.dialect !== "postgres") return;
  // Only the Postgres builder has execute(); the dialect check above says this is it.
  const orm = tx.orm as unknown as { execute(query: SQL): Promise<unknown> };
  await orm.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`bookdist:blob:${sha256}`}))`);
}

export async function insertBlob(db: Database, sha256: string, size: number, now: Date): Promise<void> {
  await queuedWrite(db, (tx) =>
    tx.orm.insert(db.tables.blob).values({ sha256, size, createdAt: now }).onConflictDoNothing(),
  );
}

export async function blobRecorded(db: Database, sha256: string): Promise<boolean> {
  const { blob } = db.tables;
  const rows = await db.orm.select({ sha256: blob.sha256 }).from(blob).where(eq(blob.sha256, sha256));
  return rows.length > 0;
}

export async function recordedBlobs(db: Database): Promise<Set<string>> {
  const { blob } = db.tables;
  return new Set((await db.orm.select({ sha256: blob.sha256 }).from(blob)).map((row) => row.sha256));
}

/**
 * Deletes the rows of blobs created before `cutoff` that no record names, in one statement, and
 * answers their hashes: what this run claimed. A concurrent run claims none of the same rows.
 */
export async function claimUnreferencedBlobs(db: Database, cutoff: Date): Promise<string[]> {
  const { blob, book, bookVersion, apk } = db.tables;
  const named = (
    column: typeof book.coverSha256 | typeof bookVersion.archiveSha256 | typeof apk.fileSha256,
  ) => notExists(db.orm.select({ one: sql`1` }).from(column.table).where(eq(column, blob.sha256)));
  const rows = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(blob)
      .where(
        and(
          lte(blob.createdAt, cutoff),
          named(book.coverSha256),
          named(bookVersion.archiveSha256),
          named(apk.fileSha256),
        ),
      )
      .returning({ sha256: blob.sha256 }),
  );
  return rows.map((row) => row.sha256);
}
