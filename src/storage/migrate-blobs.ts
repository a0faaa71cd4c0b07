// `bun run storage migrate`: copies every blob of DATA_DIR/blobs into the bucket. Idempotent: an
// object already there with the right bytes is left alone. Every blob is checked by its sha256
// twice: the local file before it is sent (a damaged file is reported, not copied) and the
// object afterwards, read back from the bucket.
import type { LocalBlobStore } from "./blob-store";
import type { S3BlobStore } from "./s3-blob-store";

export interface MigrationReport {
  copied: number;
  alreadyThere: number;
  /** Local files whose bytes do not hash to their name: left out, listed for the operator. */
  damaged: string[];
  bytesCopied: number;
}

async function hashOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of stream) hasher.update(chunk);
  return hasher.digest("hex");
}

/** The object's bytes hash to its name; false when it is missing or differs. */
async function objectIntact(target: S3BlobStore, sha256: string): Promise<boolean> {
  if (!(await target.exists(sha256))) return false;
  return (await hashOf(target.client.file(target.keyOf(sha256)).stream())) === sha256;
}

export async function migrateBlobs(
  source: LocalBlobStore,
  target: S3BlobStore,
  progress: (line: string) => void = () => {},
): Promise<MigrationReport> {
  const report: MigrationReport = { copied: 0, alreadyThere: 0, damaged: [], bytesCopied: 0 };
  for await (const blob of source.listBlobs()) {
    const path = source.pathOf(blob.sha256);
    if ((await hashOf(Bun.file(path).stream())) !== blob.sha256) {
      report.damaged.push(blob.sha256);
      progress(`damaged (its bytes do not match its name), not copied: ${blob.sha256}`);
      continue;
    }
    if (await objectIntact(target, blob.sha256)) {
      report.alreadyThere++;
      continue;
    }
    await target.upload(path, blob.sha256, blob.size);
    if (!(await objectIntact(target, blob.sha256))) {
      throw new Error(`the object of ${blob.sha256} does not match after the copy`);
    }
    report.copied++;
    report.bytesCopied += blob.size;
    progress(`copied ${blob.sha256} (${blob.size} bytes)`);
  }
  return report;
}
