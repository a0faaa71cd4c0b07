// `bun run admin restore <dir>` (README "Backups and upgrades"): puts a backup into an empty
// DATA_DIR before the server starts there. The backup folder may have been changed by someone
// else, so nothing in it is trusted unchecked: the manifest must match its schema, every file
// must be a regular one (backup-files.ts), every blob must hold the bytes its name's sha256 says,
// and the counts must match the manifest. Everything is written into a staging folder beside
// DATA_DIR and moved into place by one rename only when all of it passed, so a failed restore
// leaves DATA_DIR as it was and can simply be retried.
import { Database } from "bun:sqlite";
import {
  chmod,
  link,
  mkdir,
  mkdtemp,
  readdir,
  realpath,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { pgRestoreCommand } from "../cli-targets";
import type { Config } from "../config";
import { isPostgresUrl, sqlitePathFromUrl } from "../db/client";
import { SHA256_HEX } from "../storage/blob-store";
import { assertRealFolder, copyBackupFile, entryAt, readBackupFile } from "./backup-files";
import {
  BACKUP_BLOBS,
  BACKUP_DATABASE,
  BACKUP_MANIFEST,
  BACKUP_SECRET,
  BackupError,
  type BackupManifest,
  MANIFEST_MAX_BYTES,
  parseManifest,
} from "./manifest";
import { renewDeploymentId } from "./renew-deployment-id";

/** A generated secret is 64 characters; an operator's own may be longer, never this long. */
const SECRET_MAX_BYTES = 4096;
const SHARD = /^[0-9a-f]{2}$/;

export interface RestoreResult {
  manifest: BackupManifest;
  notes: string[];
}

export async function restore(config: Config, source: string): Promise<RestoreResult> {
  // The folder the operator names may be reached through a link; nothing inside it may be one.
  const from = await realpath(source).catch(() => {
    throw new BackupError(`there is no backup folder ${source}`);
  });
  await assertRealFolder(from, "backup folder");
  const manifestBytes = await readBackupFile(
    join(from, BACKUP_MANIFEST),
    BACKUP_MANIFEST,
    MANIFEST_MAX_BYTES,
  );
  const manifest = parseManifest(new TextDecoder().decode(manifestBytes));

  const notes: string[] = [];
  const postgres = isPostgresUrl(config.databaseUrl);
  if (postgres)
    notes.push(
      `the database is on Postgres: restore it with pg_restore from your pg_dump, e.g. ${pgRestoreCommand(config.databaseUrl)}; the blobs and jwt-secret are in place`,
    );
  else if (manifest.database !== "sqlite")
    throw new BackupError("this backup holds no SQLite database (it was taken on Postgres)");

  const staging = await stageBeside(config.dataDir);
  let database: StagedDatabase | null = null;
  try {
    database = postgres ? null : await stageDatabase(staging.folder, config);
    if (database !== null) {
      await copyBackupFile(join(from, BACKUP_DATABASE), BACKUP_DATABASE, database.staged, { hash: false });
      await assertSoundSqlite(database.staged);
    }
    if (manifest.blobsIn === "bucket") {
      notes.push("the backup holds no blobs: they are in the S3 bucket it was taken with");
    } else {
      await restoreBlobs(join(from, BACKUP_BLOBS), join(staging.folder, "blobs"), manifest);
      if (config.storage.driver === "s3")
        notes.push(
          "the blobs were put in DATA_DIR/blobs: run `bun run storage migrate` to copy them into the bucket",
        );
    }
    if (manifest.jwtSecret)
      await restoreSecret(join(from, BACKUP_SECRET), join(staging.folder, "jwt-secret"));

    // The restored database is complete and checked in the staging folder, and nothing is in
    // DATA_DIR yet: the copy gets a deployment id of its own here, so that a failure leaves
    // DATA_DIR as it was.
    if (database !== null) await renewDeploymentId(`sqlite:${database.staged}`, manifest.createdAt);

    if (database !== null) await database.moveIntoPlace();
    try {
      await staging.moveIntoPlace();
    } catch (error) {
      await database?.takeBack();
      throw error;
    }
  } catch (error) {
    await database?.discard();
    await staging.discard();
    throw error;
  }
  return { manifest, notes };
}

/** A folder filled in place of DATA_DIR and moved there at the end, or thrown away. */
interface Staging {
  folder: string;
  moveIntoPlace(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Checks that DATA_DIR is empty (or not there yet) and makes the staging folder: beside DATA_DIR,
 * on the same file system, so that one rename puts it in place. A DATA_DIR that is a mount point
 * (a container's volume) cannot be replaced by a rename, nor can one whose parent we may not
 * write: then the staging folder is made inside it and its entries are moved up at the end.
 */
async function stageBeside(dataDir: string): Promise<Staging> {
  let target = resolve(dataDir);
  let existing = await entryAt(target);
  if (existing?.isSymbolicLink()) {
    // An operator's own link to where the data lives: restore into what it points at.
    target = await realpath(target);
    existing = await entryAt(target);
  }
  if (existing !== null) {
    if (!existing.isDirectory()) throw new BackupError(`DATA_DIR ${dataDir} is not a folder`);
    if ((await readdir(target)).length > 0) throw new BackupError(`DATA_DIR ${dataDir} is not empty`);
  }
  const parent = dirname(target);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const mountPoint = existing !== null && existing.dev !== (await stat(parent)).dev;
  if (!mountPoint) {
    const beside = await mkdtemp(join(parent, `.${basename(target)}.restore-`)).catch(
      (error: NodeJS.ErrnoException) => {
        if (existing !== null && ["EACCES", "EPERM", "EROFS"].includes(error.code ?? "")) return null;
        throw error;
      },
    );
    if (beside !== null)
      return {
        folder: beside,
        // rename(2) replaces an empty folder in one step, and fails if anything appeared in it.
        moveIntoPlace: () =>
          rename(beside, target).catch((error: NodeJS.ErrnoException) => {
            if (error.code === "ENOTEMPTY" || error.code === "EEXIST")
              throw new BackupError(`DATA_DIR ${dataDir} is no longer empty`);
            throw error;
          }),
        discard: () => rm(beside, { recursive: true, force: true }),
      };
  }
  const inside = await mkdtemp(join(target, ".restore-"));
  return {
    folder: inside,
    async moveIntoPlace() {
      const others = (await readdir(target)).filter((name) => name !== basename(inside));
      if (others.length > 0) throw new BackupError(`DATA_DIR ${dataDir} is no longer empty`);
      for (const name of await readdir(inside)) await rename(join(inside, name), join(target, name));
      await rmdir(inside);
      // As the server makes it at start; a volume owned by another user may refuse, as it may there.
      await chmod(target, 0o700).catch(() => {});
    },
    discard: () => rm(inside, { recursive: true, force: true }),
  };
}

/** Where the restored SQLite file is written, and how it gets to DATABASE_URL's path. */
interface StagedDatabase {
  staged: string;
  moveIntoPlace(): Promise<void>;
  /** Undoes moveIntoPlace when DATA_DIR could not follow. */
  takeBack(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * The database file's place while staged: inside the staging folder when DATABASE_URL names a
 * file in DATA_DIR (the default), else beside the file it will become.
 */
async function stageDatabase(stagingFolder: string, config: Config): Promise<StagedDatabase> {
  const path = resolve(sqlitePathFromUrl(config.databaseUrl));
  const inData = relative(resolve(config.dataDir), path);
  if (inData !== "" && !inData.startsWith("..") && !isAbsolute(inData)) {
    const staged = join(stagingFolder, inData);
    await mkdir(dirname(staged), { recursive: true, mode: 0o700 });
    const nothing = async () => {};
    return { staged, moveIntoPlace: nothing, takeBack: nothing, discard: nothing };
  }
  if ((await entryAt(path)) !== null) throw new BackupError(`the database file ${path} exists already`);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const staged = `${path}.restore-${crypto.randomUUID()}`;
  let placed = false;
  return {
    staged,
    async moveIntoPlace() {
      // link(2) never replaces a file: a database made there meanwhile is kept and refused.
      await link(staged, path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "EEXIST") throw new BackupError(`the database file ${path} exists already`);
        throw error;
      });
      placed = true;
      await unlink(staged);
    },
    async takeBack() {
      if (placed) await rm(path, { force: true });
    },
    discard: () => rm(staged, { force: true }),
  };
}

/** A file SQLite can open and whose pages and records are sound, before it is put in place. */
async function assertSoundSqlite(path: string): Promise<void> {
  let verdict: string;
  try {
    const connection = new Database(path, { readwrite: true, create: false, strict: true });
    try {
      verdict = (connection.query("PRAGMA quick_check").get() as { quick_check: string }).quick_check;
    } finally {
      connection.close();
    }
  } catch {
    verdict = "not a database";
  }
  if (verdict !== "ok") throw new BackupError(`${BACKUP_DATABASE} is not a sound SQLite database`);
  // Closing the last connection normally removes the -wal and -shm it made; should one stay, it
  // must not be moved into place beside the restored file as if it belonged to it.
  await rm(`${path}-wal`, { force: true });
  await rm(`${path}-shm`, { force: true });
}

/**
 * Copies blobs/<2 hex>/<sha256> from the backup, each checked against its name: content
 * addressing is what makes a blob safe to serve, so a file whose bytes are not its name's is
 * refused, and so is anything else in the tree. The totals must be the manifest's.
 */
async function restoreBlobs(from: string, to: string, manifest: BackupManifest): Promise<void> {
  let files = 0;
  let bytes = 0;
  if (manifest.blobs > 0 || (await entryAt(from)) !== null) {
    await assertRealFolder(from, `${BACKUP_BLOBS}/`);
    for (const shard of (await readdir(from)).sort()) {
      const name = `${BACKUP_BLOBS}/${shard}`;
      if (!SHARD.test(shard)) throw new BackupError(`${name} is not a blob folder of a backup`);
      await assertRealFolder(join(from, shard), name);
      await mkdir(join(to, shard), { recursive: true, mode: 0o700 });
      for (const blob of (await readdir(join(from, shard))).sort()) {
        const blobName = `${name}/${blob}`;
        if (!SHA256_HEX.test(blob) || !blob.startsWith(shard))
          throw new BackupError(`${blobName} is not named by its sha256, as every blob is`);
        const copied = await copyBackupFile(join(from, shard, blob), blobName, join(to, shard, blob), {
          hash: true,
        });
        if (copied.sha256 !== blob)
          throw new BackupError(`${blobName} does not hold the bytes its name (their sha256) says`);
        files += 1;
        bytes += copied.size;
      }
    }
  }
  if (files !== manifest.blobs || bytes !== manifest.blobBytes)
    throw new BackupError(
      `${BACKUP_MANIFEST} counts ${manifest.blobs} blobs of ${manifest.blobBytes} bytes, but ${BACKUP_BLOBS}/ holds ${files} of ${bytes}`,
    );
}

async function restoreSecret(from: string, to: string): Promise<void> {
  const secret = await readBackupFile(from, BACKUP_SECRET, SECRET_MAX_BYTES);
  if (new TextDecoder().decode(secret).trim() === "") throw new BackupError(`${BACKUP_SECRET} is empty`);
  await writeFile(to, secret, { mode: 0o600, flag: "wx" });
}
