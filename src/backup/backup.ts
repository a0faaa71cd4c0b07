// `bun run admin backup <dir>` and `bun run admin restore <dir>` (API.md §8). A backup is taken
// while the server runs and writes: first the database (SQLite's VACUUM INTO: one read
// transaction, so one consistent moment, without the write lock), then the blobs (content-
// addressed and written before the rows naming them, so every blob the copied rows name exists;
// later uploads come along and the restored server's cleanup removes those nobody names), then
// the jwt-secret, without which the restored server's sessions would end.
import { Database } from "bun:sqlite";
import { copyFile, mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Config } from "../config";
import { isPostgresUrl, sqlitePathFromUrl } from "../db/client";
import { LocalBlobStore } from "../storage/blob-store";
import { renewDeploymentId } from "./renew-deployment-id";

export const BACKUP_DATABASE = "bookdist.sqlite";
export const BACKUP_BLOBS = "blobs";
export const BACKUP_SECRET = "jwt-secret";
export const BACKUP_MANIFEST = "backup.json";

/** What a backup holds, written last into backup.json: a folder without it is incomplete. */
export interface BackupManifest {
  version: string;
  createdAt: string;
  database: "sqlite" | "postgres (not included: use pg_dump)";
  /** Where the blobs are: in this backup, or (STORAGE=s3) only in the bucket, not copied. */
  blobsIn: "backup" | "bucket";
  blobs: number;
  blobBytes: number;
  jwtSecret: boolean;
}

export interface BackupReport extends BackupManifest {
  notes: string[];
}

/** A folder that does not exist or holds nothing: the only kind a backup or a restore writes into. */
export async function assertEmptyFolder(path: string, what: string): Promise<void> {
  const entries = await readdir(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw error;
  });
  if (entries.length > 0) throw new BackupError(`${what} ${path} is not empty`);
}

export class BackupError extends Error {}

export async function backup(config: Config, target: string, version: string): Promise<BackupReport> {
  await assertEmptyFolder(target, "the backup folder");
  await mkdir(target, { recursive: true, mode: 0o700 });
  const notes: string[] = [];
  const postgres = isPostgresUrl(config.databaseUrl);
  if (postgres) {
    notes.push(
      'the database is on Postgres: back it up with pg_dump (e.g. pg_dump -Fc -f bookdist.dump "$DATABASE_URL"); this folder holds the blobs and the jwt-secret only',
    );
  } else {
    backupSqlite(sqlitePathFromUrl(config.databaseUrl), join(target, BACKUP_DATABASE));
  }
  // With STORAGE=s3 the blobs are the bucket's to keep (versioning, replication): DATA_DIR/blobs
  // holds only the temp files of uploads in flight.
  const inBucket = config.storage.driver === "s3";
  if (inBucket)
    notes.push(
      "the blobs are in the S3 bucket (STORAGE=s3) and are not copied: keep the bucket's own versioning or replication",
    );
  const copied = inBucket
    ? { files: 0, bytes: 0 }
    : await copyBlobs(join(config.dataDir, "blobs"), join(target, BACKUP_BLOBS));
  const jwtSecret = await copyIfPresent(join(config.dataDir, "jwt-secret"), join(target, BACKUP_SECRET));
  if (!jwtSecret)
    notes.push("no DATA_DIR/jwt-secret: JWT_SECRET is set in the environment; keep it with this backup");
  const manifest: BackupManifest = {
    version,
    createdAt: new Date().toISOString(),
    database: postgres ? "postgres (not included: use pg_dump)" : "sqlite",
    blobsIn: inBucket ? "bucket" : "backup",
    blobs: copied.files,
    blobBytes: copied.bytes,
    jwtSecret,
  };
  await writeFile(join(target, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return { ...manifest, notes };
}

/**
 * A consistent copy of a live SQLite database: VACUUM INTO reads it in one transaction (WAL
 * readers never wait for the writer, nor it for them) and writes a compact file.
 */
export function backupSqlite(source: string, destination: string): void {
  const connection = new Database(source, { readonly: true, strict: true });
  try {
    connection.exec("PRAGMA busy_timeout = 5000");
    connection.run("VACUUM INTO ?", [destination]);
  } finally {
    connection.close();
  }
}

/**
 * Copies every published blob of the store at `from` into the same layout at `to`, one file at a
 * time (copy_file_range, never in memory). Its own step: with STORAGE=s3 blobs live in the bucket.
 */
export async function copyBlobs(from: string, to: string): Promise<{ files: number; bytes: number }> {
  const store = new LocalBlobStore(from);
  let files = 0;
  let bytes = 0;
  for await (const blob of store.listBlobs()) {
    const destination = join(to, blob.sha256.slice(0, 2), blob.sha256);
    await mkdir(dirname(destination), { recursive: true, mode: 0o700 });
    try {
      await copyFile(store.pathOf(blob.sha256), destination);
    } catch (error) {
      // Removed by the cleanup job since it was listed: no row names it any more.
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    files += 1;
    bytes += blob.size;
  }
  return { files, bytes };
}

async function copyIfPresent(from: string, to: string): Promise<boolean> {
  try {
    await copyFile(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Puts a backup into an empty DATA_DIR (and, on SQLite, a database file that does not exist yet),
 * before the server starts there.
 */
export async function restore(
  config: Config,
  source: string,
): Promise<{ manifest: BackupManifest; notes: string[] }> {
  const manifestText = await Bun.file(join(source, BACKUP_MANIFEST))
    .text()
    .catch(() => {
      throw new BackupError(`${source} holds no ${BACKUP_MANIFEST}: not a complete backup`);
    });
  const manifest = JSON.parse(manifestText) as BackupManifest;
  await assertEmptyFolder(config.dataDir, "DATA_DIR");
  const notes: string[] = [];
  const postgres = isPostgresUrl(config.databaseUrl);
  let databasePath: string | undefined;
  if (postgres) {
    notes.push(
      "the database is on Postgres: restore it with pg_restore from your pg_dump; the blobs and jwt-secret are in place",
    );
  } else {
    if (manifest.database !== "sqlite")
      throw new BackupError("this backup holds no SQLite database (it was taken on Postgres)");
    databasePath = sqlitePathFromUrl(config.databaseUrl);
    if (await stat(databasePath).catch(() => null))
      throw new BackupError(`the database file ${databasePath} exists already`);
  }
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  if (databasePath !== undefined) {
    await mkdir(dirname(databasePath), { recursive: true, mode: 0o700 });
    await copyFile(join(source, BACKUP_DATABASE), databasePath);
    await renewDeploymentId(config.databaseUrl);
  }
  if (manifest.blobsIn === "bucket") {
    notes.push("the backup holds no blobs: they are in the S3 bucket it was taken with");
  } else {
    await copyBlobs(join(source, BACKUP_BLOBS), join(config.dataDir, "blobs"));
    if (config.storage.driver === "s3")
      notes.push(
        "the blobs were put in DATA_DIR/blobs: run `bun run storage migrate` to copy them into the bucket",
      );
  }
  if (manifest.jwtSecret) await copyFile(join(source, BACKUP_SECRET), join(config.dataDir, "jwt-secret"));
  return { manifest, notes };
}
