// What a backup folder holds and how its backup.json reads. A restore trusts nothing in the
// folder it was not able to check: the manifest must match this schema exactly (no unknown,
// missing or mistyped field), because its fields decide what is copied and are printed.
import { z } from "zod";

export const BACKUP_DATABASE = "bookdist.sqlite";
export const BACKUP_BLOBS = "blobs";
export const BACKUP_SECRET = "jwt-secret";
export const BACKUP_MANIFEST = "backup.json";

/** A manifest is a few hundred bytes; anything much larger is not one. */
export const MANIFEST_MAX_BYTES = 64 * 1024;

/** What a backup holds, written last into backup.json: a folder without it is incomplete. */
export const BackupManifest = z.strictObject({
  /** The package version that wrote it; free text, so it is printed escaped. */
  version: z.string().min(1).max(100),
  createdAt: z.iso.datetime(),
  database: z.enum(["sqlite", "postgres (not included: use pg_dump)"]),
  /** Where the blobs are: in this backup, or (STORAGE=s3) only in the bucket, not copied. */
  blobsIn: z.enum(["backup", "bucket"]),
  blobs: z.int().min(0),
  blobBytes: z.int().min(0),
  jwtSecret: z.boolean(),
});
export type BackupManifest = z.infer<typeof BackupManifest>;

export class BackupError extends Error {}

/** The manifest's text checked against the schema; a BackupError names what is wrong. */
export function parseManifest(text: string): BackupManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BackupError(`${BACKUP_MANIFEST} is not JSON`);
  }
  const parsed = BackupManifest.safeParse(json);
  if (!parsed.success) {
    // Zod's messages name the key and the expected type, never the value found.
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join(".") || "(top)"}: ${issue.message}`,
    );
    throw new BackupError(`${BACKUP_MANIFEST} is not a backup manifest (${problems.join("; ")})`);
  }
  if (parsed.data.blobsIn === "bucket" && (parsed.data.blobs !== 0 || parsed.data.blobBytes !== 0))
    throw new BackupError(`${BACKUP_MANIFEST} counts blobs in a backup whose blobs are in the bucket`);
  return parsed.data;
}
