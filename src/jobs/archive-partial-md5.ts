// The backfill of KOReader's document ids (README "Reading progress"): archives stored before the
// partial MD5 was kept have archive_partial_md5 NULL; start-up computes it in the background, a
// slice of rows at a time, through the blob store's ranged reads (12 reads of 1 KiB a version, a
// local file or a bucket alike). Idempotent: a row with its MD5 is not read again, so an
// interrupted run, or several instances, simply carry on.
import type { Database } from "#db";
import { queuedWrite } from "../db/transaction";
import type { Logger } from "../lib/logger";
import { AppError } from "../lib/problems";
import { listArchivesWithoutPartialMd5, recordArchivePartialMd5 } from "../repositories/book-versions";
import type { BlobMaintenance } from "../storage/blob-store";
import type { ReadAt } from "../storage/file-types";
import { partialMd5 } from "../storage/partial-md5";

/** Rows read per slice: the memory a slice holds, and the work between two looks at the database. */
export const PARTIAL_MD5_SLICE = 50;

export interface PartialMd5Backfill {
  /** Rows given their partial MD5. */
  computed: number;
  /** Rows left for a later run: their blob could not be read now (logged). */
  failed: number;
}

function readAtBlob(blobs: Pick<BlobMaintenance, "readRange">, sha256: string): ReadAt {
  return async (start, end) => {
    const bytes = await blobs.readRange(sha256, start, end);
    return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/** ENOENT, SERVICE_UNAVAILABLE, …: what a log line may say of a failed read. */
function failureCode(error: unknown): string {
  if (error instanceof AppError) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code) ? code : "read failed";
}

/** Computes the partial MD5 of every stored archive without one, `sliceSize` rows at a time. */
export async function backfillPartialMd5(
  deps: { db: Database; blobs: Pick<BlobMaintenance, "readRange">; logger: Logger },
  options: { sliceSize?: number; signal?: AbortSignal } = {},
): Promise<PartialMd5Backfill> {
  const sliceSize = options.sliceSize ?? PARTIAL_MD5_SLICE;
  const result: PartialMd5Backfill = { computed: 0, failed: 0 };
  // The cursor moves past failed rows, so a blob that cannot be read never holds the run up.
  let afterId = 0;
  while (true) {
    const slice = await listArchivesWithoutPartialMd5(deps.db, afterId, sliceSize);
    if (slice.length === 0) return result;
    for (const row of slice) {
      // Shutdown stops it between rows; the rest is done at the next start.
      if (options.signal?.aborted) return result;
      afterId = row.id;
      try {
        const digest = await partialMd5(readAtBlob(deps.blobs, row.archiveSha256), row.archiveSize);
        const written = await queuedWrite(deps.db, (tx) =>
          recordArchivePartialMd5(tx, row.id, row.archiveSha256, digest),
        );
        if (written) result.computed++;
      } catch (error) {
        result.failed++;
        // The kind of failure only: a file system error's message names the blob's path.
        deps.logger.warn("partial MD5 failed; retried at the next start", {
          bookVersionId: row.id,
          reason: failureCode(error),
        });
      }
    }
  }
}
