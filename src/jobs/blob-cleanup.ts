import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { Clock } from "../lib/clock";
import { blobRecorded, claimUnreferencedBlobs, lockBlob, recordedBlobs } from "../repositories/blobs";
import { markAdopted, readDeployment } from "../repositories/deployment";
import { adoptNamedBlobs } from "../storage/adopt-blobs";
import { DEFAULT_BLOB_GRACE_MS } from "../storage/blob-grace";
import type { BlobMaintenance } from "../storage/blob-store";

/**
 * Removes files that no record refers to: blob rows without a reference, files without a row,
 * and temp files of crashed uploads — all only once older than the grace (BLOB_CLEANUP_GRACE), so
 * that an upload in flight (file written, row not yet pointed at it) is never touched.
 *
 * Only this deployment's files go (README "Storage"): a file is released, not removed — this
 * deployment's owner marker goes, and the file with it only when no other deployment (a restored
 * copy, or a server switched to another database with the same DATA_DIR or bucket) has a marker
 * on it. A file without this deployment's marker is never touched: another deployment's, or one
 * nobody named at the upgrade that brought markers.
 *
 * Several instances may run it at once: rows are claimed by one DELETE … RETURNING, so each is
 * removed and reported by one run only; a file is removed only under its blob's lock and only
 * while no row names it and it is older than the grace, and an upload renews the file when it
 * stores it, checks that it is still there, then registers it under the same lock
 * (services/files.ts), so a re-upload of the same bytes never ends up pointing at a removed file.
 */
export async function cleanupBlobs(deps: {
  db: Database;
  blobs: BlobMaintenance;
  clock: Clock;
  config?: { blobCleanupGraceMs: number };
}): Promise<{ rows: number; files: number; tempFiles: number; adopted?: number }> {
  const { db, blobs } = deps;
  const graceMs = deps.config?.blobCleanupGraceMs ?? DEFAULT_BLOB_GRACE_MS;
  const now = deps.clock.now();
  const cutoff = new Date(now.getTime() - graceMs);

  // The first run after the upgrade that made the deployment id takes over what its database
  // names already (their files predate markers); a restored copy has nothing pending.
  const deployment = await readDeployment(db);
  let adopted: number | undefined;
  if (deployment.adoptPending) {
    adopted = (await adoptNamedBlobs(db, blobs)).adopted;
    await markAdopted(db, deployment.id);
  }

  const claimed = await claimUnreferencedBlobs(db, cutoff);
  // A claimed row was older than the grace; its file goes once it too is older than the grace (an
  // upload of the same bytes renewed it, and is about to record it again).
  let files = 0;
  for (const sha256 of claimed) if (await releaseUnrecordedFile(db, blobs, sha256, cutoff)) files++;

  // Files that never got a row (an upload refused after it was stored, a crash in between).
  const recorded = await recordedBlobs(db);
  for await (const file of blobs.listBlobs()) {
    if (recorded.has(file.sha256) || file.mtimeMs > cutoff.getTime()) continue;
    if (await releaseUnrecordedFile(db, blobs, file.sha256, cutoff)) files++;
  }
  const tempFiles = await blobs.removeStaleTempFiles(graceMs, now);
  return { rows: claimed.length, files, tempFiles, ...(adopted === undefined ? {} : { adopted }) };
}

/**
 * Releases the blob's file (see BlobMaintenance.releaseSync) unless a row names it (again), under
 * the blob's lock, or it changed since `cutoff`; true when this call removed it. The local release
 * is synchronous: on SQLite nothing else may run in the transaction.
 */
async function releaseUnrecordedFile(
  db: Database,
  blobs: BlobMaintenance,
  sha256: string,
  cutoff: Date,
): Promise<boolean> {
  const { releaseSync } = blobs;
  if (releaseSync) {
    return withTransaction(db, async (tx) => {
      await lockBlob(tx, sha256);
      if (await blobRecorded(tx, sha256)) return false;
      return releaseSync.call(blobs, sha256, cutoff);
    });
  }
  // A bucket is not called inside a transaction: check, then release unless an upload wrote the
  // object (or its marker) again since the cutoff (an upload records a blob only right after
  // writing or finding a fresh object, see storage/s3-blob-store.ts).
  const unrecorded = await withTransaction(db, async (tx) => {
    await lockBlob(tx, sha256);
    return !(await blobRecorded(tx, sha256));
  });
  return unrecorded && blobs.releaseIfUnchangedSince(sha256, cutoff);
}
