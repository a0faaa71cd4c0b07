// `bun run admin backup <dir>` (README "Backups and upgrades"; restore.ts puts one back). A
// backup is taken while the server runs and writes: first the database (SQLite's VACUUM INTO:
// one read transaction, so one consistent moment, without the write lock), then the blobs
// (content-addressed and written before the rows naming them, so every blob the copied rows name
// exists; later uploads come along and the restored server's cleanup removes those nobody
// names), then the jwt-secret, without which the restored server's sessions would end.
import { Database } from "bun:sqlite";
import { chmod, copyFile, lstat, mkdir, readdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pgDumpCommand } from "../cli-targets";
import type { Config } from "../config";
import { isPostgresUrl, sqlitePathFromUrl } from "../db/client";
import { LocalBlobStore } from "../storage/blob-store";
import {
  BACKUP_BLOBS,
  BACKUP_DATABASE,
  BACKUP_MANIFEST,
  BACKUP_SECRET,
  BackupError,
  type BackupManifest,
} from "./manifest";

export interface BackupReport extends BackupManifest {
  notes: string[];
}

/**
 * The folder a backup goes into: made mode 0700 when it does not exist. An existing one must be
 * an empty folder of ours (not a link) that nobody else can write: whoever can write it could
 * swap a file of the backup, or read the jwt-secret through a link planted before we write it.
 * An empty folder of ours that others may only read (mkdir's usual 0755) is tightened to 0700.
 */
async function prepareBackupFolder(target: string): Promise<void> {
  const info = await lstat(target).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (info === null) {
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    // Not recursive: a folder or link someone made there since the lstat is refused, not used.
    await mkdir(target, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") throw new BackupError(`the backup folder ${target} appeared meanwhile`);
      throw error;
    });
    // mkdir's mode passes through the umask; the folder must be 0700 whatever the caller's is.
    await chmod(target, 0o700);
    return;
  }
  if (info.isSymbolicLink())
    throw new BackupError(`the backup folder ${target} is a link: name the folder it points to`);
  if (!info.isDirectory()) throw new BackupError(`the backup folder ${target} is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid)
    throw new BackupError(`the backup folder ${target} belongs to another user (uid ${info.uid})`);
  if ((info.mode & 0o022) !== 0)
    throw new BackupError(
      `the backup folder ${target} can be written by others (mode ${(info.mode & 0o777).toString(8)}): give a new folder, or make it 0700 first`,
    );
  if ((await readdir(target)).length > 0) throw new BackupError(`the backup folder ${target} is not empty`);
  await chmod(target, 0o700);
}

export async function backup(config: Config, target: string, version: string): Promise<BackupReport> {
  await prepareBackupFolder(target);
  const notes: string[] = [];
  const postgres = isPostgresUrl(config.databaseUrl);
  if (postgres) {
    // The database this environment names (DATABASE_URL may have come from `.env`, which the
    // shell's $DATABASE_URL does not see), without its password.
    notes.push(
      `the database is on Postgres: back it up with pg_dump, e.g. ${pgDumpCommand(config.databaseUrl)}; this folder holds the blobs and the jwt-secret only`,
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
function backupSqlite(source: string, destination: string): void {
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
async function copyBlobs(from: string, to: string): Promise<{ files: number; bytes: number }> {
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
