import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { Clock } from "../lib/clock";
import { blobRecorded, claimUnreferencedBlobs, lockBlob, recordedBlobs } from "../repositories/blobs";
import type { BlobStore } from "../storage/blob-store";

/** Uploads in flight are younger than this; nothing younger is ever removed. */
export const BLOB_GRACE_MS = 60 * 60 * 1000;

/**
 * Removes files that no record refers to: blob rows without a reference, files without a row,
 * and temp files of crashed uploads — all only once older than an hour, so that an upload in
 * flight (file written, row not yet pointed at it) is never touched.
 *
 * Several instances may run it at once: rows are claimed by one DELETE … RETURNING, so each is
 * removed and reported by one run only; a file is removed only under its blob's lock and only
 * while no row names it, and an upload registers the blob under the same lock and checks that
 * the file is still there (services/files.ts), so a re-upload of the same bytes never ends up
 * pointing at a removed file.
 */
export async function cleanupBlobs(deps: {
  db: Database;
  blobs: BlobStore;
  clock: Clock;
}): Promise<{ rows: number; files: number; tempFiles: number }> {
  const { db, blobs } = deps;
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - BLOB_GRACE_MS);

  const claimed = await claimUnreferencedBlobs(db, cutoff);
  // A claimed row was older than the grace; its file goes whatever its age on disk (as before),
  // while an object in a bucket goes only once it too is older than the grace.
  const claimedCutoff = blobs.driver === "local" ? now : cutoff;
  let files = 0;
  for (const sha256 of claimed) if (await removeUnrecordedFile(db, blobs, sha256, claimedCutoff)) files++;

  // Files that never got a row (an upload refused after it was stored, a crash in between).
  const recorded = await recordedBlobs(db);
  for await (const file of blobs.listBlobs()) {
    if (recorded.has(file.sha256) || file.mtimeMs > cutoff.getTime()) continue;
    if (await removeUnrecordedFile(db, blobs, file.sha256, cutoff)) files++;
  }
  const tempFiles = await blobs.removeStaleTempFiles(BLOB_GRACE_MS, now);
  return { rows: claimed.length, files, tempFiles };
}

/**
 * Removes the blob's file unless a row names it (again), under the blob's lock; true when this
 * call removed it. The removal is synchronous: on SQLite nothing else may run in the transaction.
 */
async function removeUnrecordedFile(
  db: Database,
  blobs: BlobStore,
  sha256: string,
  cutoff: Date,
): Promise<boolean> {
  const { removeSync } = blobs;
  if (removeSync) {
    return withTransaction(db, async (tx) => {
      await lockBlob(tx, sha256);
      if (await blobRecorded(tx, sha256)) return false;
      return removeSync.call(blobs, sha256);
    });
  }
  // A bucket is not called inside a transaction: check, then remove unless an upload wrote the
  // object again since the cutoff (an upload records a blob only right after writing or finding
  // a fresh object, see storage/s3-blob-store.ts).
  const unrecorded = await withTransaction(db, async (tx) => {
    await lockBlob(tx, sha256);
    return !(await blobRecorded(tx, sha256));
  });
  return unrecorded && blobs.removeIfUnchangedSince(sha256, cutoff);
}
