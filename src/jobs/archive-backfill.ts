// The slice loop both archive backfills share (recognition, KOReader's partial MD5): versions whose
// archive lacks a derived field are read `sliceSize` rows at a time by id, each through the blob
// store's ranged reads (a local file or a bucket alike), and the field is written in its own queued
// write. Idempotent: a row that has its field is not listed again, so an interrupted run, or
// several instances, simply carry on.
import type { Database } from "#db";
import type { Logger } from "../lib/logger";
import { AppError } from "../lib/problems";
import { type ArchiveMissing, type ArchiveRow, listArchivesMissing } from "../repositories/book-versions";
import type { BlobMaintenance } from "../storage/blob-store";
import type { ReadAt } from "../storage/file-types";

/** Rows read per slice: the memory a slice holds, and the work between two looks at the database. */
export const ARCHIVE_BACKFILL_SLICE = 50;

export interface BackfillDeps {
  db: Database;
  blobs: Pick<BlobMaintenance, "readRange">;
  logger: Logger;
}

export interface BackfillOptions {
  sliceSize?: number;
  signal?: AbortSignal;
}

export interface ArchiveBackfill {
  /** Which derived field the rows lack. */
  missing: ArchiveMissing;
  /** The log line of a row whose blob could not be read now. */
  failureMessage: string;
  /** Derives and writes the field of one row; false when the row had changed meanwhile. */
  fill(row: ArchiveRow, readAt: ReadAt): Promise<boolean>;
}

/** Runs one backfill to its end (or to `signal`); the count of rows written and of rows that failed. */
export async function runArchiveBackfill(
  deps: BackfillDeps,
  backfill: ArchiveBackfill,
  options: BackfillOptions = {},
): Promise<{ written: number; failed: number }> {
  const sliceSize = options.sliceSize ?? ARCHIVE_BACKFILL_SLICE;
  const result = { written: 0, failed: 0 };
  // The cursor moves past failed rows, so a blob that cannot be read never holds the run up.
  let afterId = 0;
  while (true) {
    const slice = await listArchivesMissing(deps.db, backfill.missing, afterId, sliceSize);
    if (slice.length === 0) return result;
    for (const row of slice) {
      // Shutdown stops it between rows; the rest is done at the next start.
      if (options.signal?.aborted) return result;
      afterId = row.id;
      try {
        if (await backfill.fill(row, readAtBlob(deps.blobs, row.archiveSha256))) result.written++;
      } catch (error) {
        result.failed++;
        // The kind of failure only: a file system error's message names the blob's path.
        deps.logger.warn(backfill.failureMessage, { bookVersionId: row.id, reason: failureCode(error) });
      }
    }
  }
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
