// `bun run storage migrate` as an operator runs it: DATA_DIR/blobs into a real Ceph bucket,
// idempotent, every object checked by its sha256, a damaged local file reported and left out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "../../src/config";
import { LocalBlobStore } from "../../src/storage/blob-store";
import { S3BlobStore } from "../../src/storage/s3-blob-store";
import { runStorageCli } from "../helpers/admin-cli";
import { requireCeph } from "../helpers/ceph";
import { s3Env } from "../helpers/s3-env";

describe.if(requireCeph())("bun run storage migrate", () => {
  let dir: string;
  let env: Record<string, string>;
  let local: LocalBlobStore;
  let bucket: S3BlobStore;
  const texts = ["first blob", "second blob", "x".repeat(9 * 1024 * 1024)];
  const hashes: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "bookdist-migrate-"));
    env = { DATA_DIR: dir, ...(await s3Env("redirect", { S3_PREFIX: "migrated/" })) };
    local = new LocalBlobStore(join(dir, "blobs"));
    await local.init();
    for (const text of texts) {
      const written = await local.write(
        (async function* () {
          yield new TextEncoder().encode(text);
        })(),
        { maxBytes: 10 * 1024 * 1024 },
      );
      hashes.push(written.sha256);
    }
    const parsed = parseConfig(env);
    if (!parsed.ok || parsed.config.storage.driver !== "s3") throw new Error("an S3 config");
    bucket = new S3BlobStore(parsed.config.storage, join(dir, "blobs"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("copies every blob, then finds them all there; each object has its bytes", async () => {
    const first = await runStorageCli(["migrate"], env);
    expect(first.stderr).not.toContain("failed");
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("copied 3 blob(s)");
    expect(first.stdout).toContain("0 already in the bucket");
    for (const [i, sha256] of hashes.entries()) {
      expect(bucket.keyOf(sha256)).toBe(`migrated/blobs/${sha256}`);
      expect(await bucket.client.file(bucket.keyOf(sha256)).text()).toBe(texts[i]!);
    }
    const again = await runStorageCli(["migrate"], env);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("copied 0 blob(s) (0 bytes), 3 already in the bucket");
  });

  test("an object with wrong bytes is copied again; a damaged local file is reported, exit 1", async () => {
    await bucket.client.write(bucket.keyOf(hashes[0]!), "tampered");
    writeFileSync(local.pathOf(hashes[1]!), "rotten");
    const run = await runStorageCli(["migrate"], env);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toContain(`damaged (its bytes do not match its name), not copied: ${hashes[1]}`);
    expect(run.stdout).toContain("copied 1 blob(s)");
    expect(await bucket.client.file(bucket.keyOf(hashes[0]!)).text()).toBe(texts[0]!);
  });

  test("without STORAGE=s3 it says what is missing and exits 2", async () => {
    const run = await runStorageCli(["migrate"], { DATA_DIR: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("STORAGE=s3");
    expect((await runStorageCli(["copy"], env)).exitCode).toBe(2);
  });
});
