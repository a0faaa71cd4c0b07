// The bucket's reuse window stays below the cleanup's grace whatever BLOB_CLEANUP_GRACE says: an
// upload that reuses an object must record it before the cleanup may take it (README "Storage").
import { describe, expect, test } from "bun:test";
import { MIN_BLOB_GRACE_MS, parseConfig } from "../../src/config";
import { DEFAULT_BLOB_GRACE_MS, reuseFreshMs } from "../../src/storage/blob-grace";
import { S3BlobStore } from "../../src/storage/s3-blob-store";

describe("reuse window and cleanup grace", () => {
  test("the window is positive and below every grace the configuration accepts", () => {
    const graces = [MIN_BLOB_GRACE_MS, MIN_BLOB_GRACE_MS + 1, 59_999, DEFAULT_BLOB_GRACE_MS, 7 * 86_400_000];
    for (const grace of graces) {
      const window = reuseFreshMs(grace);
      expect(window).toBeGreaterThan(0);
      expect(window).toBeLessThan(grace);
    }
  });

  test("by default: 30 minutes below the 60 minutes BLOB_CLEANUP_GRACE defaults to", () => {
    const parsed = parseConfig({ DATA_DIR: "/srv/bookdist" });
    expect(parsed.ok && parsed.config.blobCleanupGraceMs).toBe(DEFAULT_BLOB_GRACE_MS);
    expect(DEFAULT_BLOB_GRACE_MS).toBe(60 * 60 * 1000);
    expect(reuseFreshMs(DEFAULT_BLOB_GRACE_MS)).toBe(30 * 60 * 1000);
  });

  test("a grace with no window below it is refused, and the bucket's store derives its window from its grace", () => {
    expect(() => reuseFreshMs(1)).toThrow(RangeError);
    const parsed = parseConfig({ DATA_DIR: "/srv/bookdist", STORAGE: "s3", S3_BUCKET: "books" });
    if (!parsed.ok || parsed.config.storage.driver !== "s3") throw new Error("an S3 configuration");
    const { storage } = parsed.config;
    expect(() => new S3BlobStore(storage, "/srv/bookdist/blobs", { graceMs: 1 })).toThrow(RangeError);
    expect(
      () => new S3BlobStore(storage, "/srv/bookdist/blobs", { graceMs: MIN_BLOB_GRACE_MS }),
    ).not.toThrow();
  });
});
