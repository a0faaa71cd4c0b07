// The backfill of KOReader's document ids (README "Reading progress"): archives stored before the
// partial MD5 was kept have archive_partial_md5 NULL; start-up computes it in the background
// through the shared slice loop (archive-backfill.ts), 12 reads of 1 KiB a version.
import { queuedWrite } from "../db/transaction";
import { recordArchivePartialMd5 } from "../repositories/book-versions";
import { partialMd5 } from "../storage/partial-md5";
import { type BackfillDeps, type BackfillOptions, runArchiveBackfill } from "./archive-backfill";

export interface PartialMd5Backfill {
  /** Rows given their partial MD5. */
  computed: number;
  /** Rows left for a later run: their blob could not be read now (logged). */
  failed: number;
}

/** Computes the partial MD5 of every stored archive without one, a slice of rows at a time. */
export async function backfillPartialMd5(
  deps: BackfillDeps,
  options: BackfillOptions = {},
): Promise<PartialMd5Backfill> {
  const { written, failed } = await runArchiveBackfill(
    deps,
    {
      missing: "archivePartialMd5",
      failureMessage: "partial MD5 failed; retried at the next start",
      async fill(row, readAt) {
        const digest = await partialMd5(readAt, row.archiveSize);
        return queuedWrite(deps.db, (tx) => recordArchivePartialMd5(tx, row.id, row.archiveSha256, digest));
      },
    },
    options,
  );
  return { computed: written, failed };
}
