// The blob store STORAGE chooses (README "Storage"): DATA_DIR/blobs, or an S3-compatible bucket that
// still spools uploads through DATA_DIR/blobs/tmp. `owner`: the deployment id its writes mark
// their blobs with (repositories/deployment.ts).
import { join } from "node:path";
import type { Config } from "../config";
import { type BlobStorage, LocalBlobStore } from "./blob-store";
import { S3BlobStore } from "./s3-blob-store";

export function createBlobStore(
  config: Pick<Config, "dataDir" | "storage" | "blobCleanupGraceMs">,
  owner: string | undefined,
): BlobStorage {
  const dir = join(config.dataDir, "blobs");
  return config.storage.driver === "s3"
    ? new S3BlobStore(config.storage, dir, { owner, graceMs: config.blobCleanupGraceMs })
    : new LocalBlobStore(dir, owner);
}
