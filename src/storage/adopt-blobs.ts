// `bun run storage adopt`, and the first cleanup after the upgrade that brought deployment ids:
// puts this deployment's owner marker beside every blob its database names, so its cleanup may
// remove them once nothing names them any more. Idempotent: a marker written again is the same.
import type { Database } from "#db";
import { recordedBlobs } from "../repositories/blobs";
import type { BlobMaintenance } from "./blob-store";

export interface AdoptReport {
  /** Blobs the database names that are now (or were already) this deployment's. */
  adopted: number;
  /** Blobs the database names whose file or object is not there: nothing to adopt. */
  missing: number;
}

/**
 * `replacing`: the deployment this one was restored from, which it replaces (`storage adopt`):
 * its markers on these blobs go, or its objects would be kept for good once it is gone. The
 * upgrade's adoption passes none.
 */
export async function adoptNamedBlobs(
  db: Database,
  blobs: BlobMaintenance,
  replacing?: string,
): Promise<AdoptReport> {
  const report: AdoptReport = { adopted: 0, missing: 0 };
  for (const sha256 of await recordedBlobs(db)) {
    if (await blobs.adopt(sha256, replacing)) report.adopted++;
    else report.missing++;
  }
  return report;
}
