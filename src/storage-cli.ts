// `bun run storage migrate`: copies DATA_DIR/blobs into the bucket of STORAGE=s3 (S3_* variables,
// same environment and .env as the server), idempotently, checking every object by its sha256.
// Safe to run while a server still uses the local files; switch it to STORAGE=s3 afterwards.
import { join } from "node:path";
import { loadConfigOrExit } from "./config";
import { LocalBlobStore } from "./storage/blob-store";
import { migrateBlobs } from "./storage/migrate-blobs";
import { S3BlobStore } from "./storage/s3-blob-store";

const USAGE = "usage: bun run storage migrate   (with STORAGE=s3 and the S3_* variables set)";

const [command, ...rest] = process.argv.slice(2);
if (command !== "migrate" || rest.length > 0) {
  console.error(USAGE);
  process.exit(2);
}
const config = loadConfigOrExit();
if (config.storage.driver !== "s3") {
  console.error("bookdist storage: STORAGE=s3 and S3_BUCKET must be set: they name the bucket to copy into");
  process.exit(2);
}
const dir = join(config.dataDir, "blobs");
const source = new LocalBlobStore(dir);
const target = new S3BlobStore(config.storage, dir);
try {
  const report = await migrateBlobs(source, target, (line) => console.log(line));
  console.log(
    `copied ${report.copied} blob(s) (${report.bytesCopied} bytes), ${report.alreadyThere} already in the bucket, ${report.damaged.length} damaged and left out`,
  );
  process.exit(report.damaged.length > 0 ? 1 : 0);
} catch (error) {
  // No stack, key or URL: the message says what failed.
  console.error(`bookdist storage: failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
