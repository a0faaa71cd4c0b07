import { eq, lte } from "drizzle-orm";
import type { Database } from "#db";
import { constraintViolation } from "../db/errors";
import type { Clock } from "../lib/clock";
import type { BlobStore } from "../storage/blob-store";

/** Uploads in flight are younger than this; nothing younger is ever removed. */
export const BLOB_GRACE_MS = 60 * 60 * 1000;

/**
 * Removes files that no record refers to: blob rows without a reference, files without a row,
 * and temp files of crashed uploads — all only once older than an hour, so that an upload in
 * flight (file written, row not yet pointed at it) is never touched. Idempotent.
 */
export async function cleanupBlobs(deps: {
  db: Database;
  blobs: BlobStore;
  clock: Clock;
}): Promise<{ rows: number; files: number; tempFiles: number }> {
  const { db, blobs } = deps;
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - BLOB_GRACE_MS);
  const { blob } = db.tables;

  const referenced = await referencedBlobs(db);
  let rows = 0;
  for (const row of await db.orm
    .select({ sha256: blob.sha256 })
    .from(blob)
    .where(lte(blob.createdAt, cutoff))) {
    if (referenced.has(row.sha256)) continue;
    try {
      await db.orm.delete(blob).where(eq(blob.sha256, row.sha256));
      rows++;
    } catch (error) {
      // A record started pointing at it meanwhile; the foreign key kept it, and so do we.
      if (constraintViolation(error) !== "foreign-key") throw error;
    }
  }

  const known = new Set((await db.orm.select({ sha256: blob.sha256 }).from(blob)).map((row) => row.sha256));
  let files = 0;
  for await (const file of blobs.listBlobs()) {
    if (known.has(file.sha256) || file.mtimeMs > cutoff.getTime()) continue;
    await blobs.remove(file.sha256);
    files++;
  }
  const tempFiles = await blobs.removeStaleTempFiles(BLOB_GRACE_MS, now);
  return { rows, files, tempFiles };
}

async function referencedBlobs(db: Database): Promise<Set<string>> {
  const { book, bookVersion, apk } = db.tables;
  const [covers, archives, apkFiles] = await Promise.all([
    db.orm.select({ sha256: book.coverSha256 }).from(book),
    db.orm.select({ sha256: bookVersion.archiveSha256 }).from(bookVersion),
    db.orm.select({ sha256: apk.fileSha256 }).from(apk),
  ]);
  return new Set(
    [...covers, ...archives, ...apkFiles]
      .map((row) => row.sha256)
      .filter((sha): sha is string => sha !== null),
  );
}
