// The blob store STORAGE chooses (API.md §8): DATA_DIR/blobs, or an S3-compatible bucket that
// still spools uploads through DATA_DIR/blobs/tmp.
import { join } from "node:path";
import type { Config } from "../config";
import { type BlobStore, LocalBlobStore } from "./blob-store";
import { S3BlobStore } from "./s3-blob-store";

export function createBlobStore(config: Pick<Config, "dataDir" | "storage">): BlobStore {
  const dir = join(config.dataDir, "blobs");
  return config.storage.driver === "s3" ? new S3BlobStore(config.storage, dir) : new LocalBlobStore(dir);
}
