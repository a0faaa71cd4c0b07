// The environment of an app whose blobs live in a fresh bucket of the test process's Ceph.
import { sharedCeph } from "./ceph";

export async function s3Env(downloads: "redirect" | "proxy", extra: Record<string, string> = {}) {
  const ceph = await sharedCeph();
  return {
    STORAGE: "s3",
    S3_BUCKET: await ceph.createBucket(),
    S3_ENDPOINT: ceph.endpoint,
    S3_REGION: ceph.region,
    S3_ACCESS_KEY_ID: ceph.accessKeyId,
    S3_SECRET_ACCESS_KEY: ceph.secretAccessKey,
    S3_PREFIX: "books/",
    S3_DOWNLOADS: downloads,
    ...extra,
  };
}
