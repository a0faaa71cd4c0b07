// The backfill of archive recognition (README "Book versions: archives and EPUBs"): archives
// stored before recognition existed have archive_format NULL; start-up recognises them in the
// background, a slice of rows at a time, reading each through the blob store's ranged reads (a
// local file or a bucket alike). Idempotent: a recognised row has its format and is not read again,
// so an interrupted run, or several instances, simply carry on.
import type { Database } from "#db";
import { queuedWrite } from "../db/transaction";
import type { Logger } from "../lib/logger";
import { AppError } from "../lib/problems";
import { listUnrecognisedArchives, recordArchiveFormat } from "../repositories/book-versions";
import { archiveFormatFields } from "../services/archive-format";
import type { BlobMaintenance } from "../storage/blob-store";
import { recogniseArchive } from "../storage/epub";
import type { ReadAt } from "../storage/file-types";

/** Rows read per slice: the memory a slice holds, and the work between two looks at the database. */
export const ARCHIVE_FORMAT_SLICE = 50;

export interface ArchiveFormatBackfill {
  /** Rows recognised and written. */
  recognised: number;
  epubs: number;
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

/** Recognises every stored archive without a format, `sliceSize` rows at a time. */
export async function backfillArchiveFormats(
  deps: { db: Database; blobs: Pick<BlobMaintenance, "readRange">; logger: Logger },
  options: { sliceSize?: number; signal?: AbortSignal } = {},
): Promise<ArchiveFormatBackfill> {
  const sliceSize = options.sliceSize ?? ARCHIVE_FORMAT_SLICE;
  const result: ArchiveFormatBackfill = { recognised: 0, epubs: 0, failed: 0 };
  // The cursor moves past failed rows, so a blob that cannot be read never holds the run up.
  let afterId = 0;
  while (true) {
    const slice = await listUnrecognisedArchives(deps.db, afterId, sliceSize);
    if (slice.length === 0) return result;
    for (const row of slice) {
      // Shutdown stops it between rows; the rest is done at the next start.
      if (options.signal?.aborted) return result;
      afterId = row.id;
      try {
        const recognition = await recogniseArchive(
          readAtBlob(deps.blobs, row.archiveSha256),
          row.archiveSize,
        );
        const fields = archiveFormatFields(recognition);
        const written = await queuedWrite(deps.db, (tx) =>
          recordArchiveFormat(tx, row.id, row.archiveSha256, fields),
        );
        if (written) {
          result.recognised++;
          if (recognition.format === "epub") result.epubs++;
        }
      } catch (error) {
        result.failed++;
        // The kind of failure only: a file system error's message names the blob's path.
        deps.logger.warn("archive recognition failed; retried at the next start", {
          bookVersionId: row.id,
          reason: failureCode(error),
        });
      }
    }
  }
}
