// The backfill of archive recognition (README "Book versions: archives and EPUBs"): archives
// stored before recognition existed have archive_format NULL; start-up recognises them in the
// background through the shared slice loop (archive-backfill.ts).
import { queuedWrite } from "../db/transaction";
import { recordArchiveFormat } from "../repositories/book-versions";
import { archiveFormatFields } from "../services/archive-format";
import { recogniseArchive } from "../storage/epub";
import { type BackfillDeps, type BackfillOptions, runArchiveBackfill } from "./archive-backfill";

export interface ArchiveFormatBackfill {
  /** Rows recognised and written. */
  recognised: number;
  epubs: number;
  /** Rows left for a later run: their blob could not be read now (logged). */
  failed: number;
}

/** Recognises every stored archive without a format, a slice of rows at a time. */
export async function backfillArchiveFormats(
  deps: BackfillDeps,
  options: BackfillOptions = {},
): Promise<ArchiveFormatBackfill> {
  let epubs = 0;
  const { written, failed } = await runArchiveBackfill(
    deps,
    {
      missing: "archiveFormat",
      failureMessage: "archive recognition failed; retried at the next start",
      async fill(row, readAt) {
        const recognition = await recogniseArchive(readAt, row.archiveSize);
        const fields = archiveFormatFields(recognition);
        const written = await queuedWrite(deps.db, (tx) =>
          recordArchiveFormat(tx, row.id, row.archiveSha256, fields),
        );
        if (written && recognition.format === "epub") epubs++;
        return written;
      },
    },
    options,
  );
  return { recognised: written, epubs, failed };
}
