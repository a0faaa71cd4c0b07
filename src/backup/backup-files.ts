// Reading a backup folder that someone else may have changed. A restore runs as the service's
// user, who can read what the backup's author perhaps could not: a link (or a hard link to another
// user's file) named like a blob would copy that file into DATA_DIR, where the server publishes
// it. So only regular files are read, opened with O_NOFOLLOW (a symlink swapped in after the
// check fails to open) and O_NONBLOCK (a FIFO swapped in does not hang the restore), checked again
// on the open descriptor, and owned by the user who restores (the only detectable sign of a hard
// link to someone else's file).
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open } from "node:fs/promises";
import { BackupError } from "./manifest";

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const CHUNK_BYTES = 1024 * 1024;

/** A sign the entry is not what a backup writes: one line naming the entry and what it is. */
function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return "a link";
  if (info.isDirectory()) return "a folder";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isBlockDevice() || info.isCharacterDevice()) return "a device";
  return "not a regular file";
}

function assertOwnRegularFile(info: Stats, name: string): void {
  if (!info.isFile()) throw new BackupError(`${name} is ${kindOf(info)}: a backup holds only regular files`);
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid)
    throw new BackupError(
      `${name} belongs to another user (uid ${info.uid}): restore as the user who owns the backup`,
    );
}

/** The entry at `path` as lstat sees it, or null when there is none. */
export async function entryAt(path: string): Promise<Stats | null> {
  return lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
}

/** A folder of the backup: a real one, not a link to one. */
export async function assertRealFolder(path: string, name: string): Promise<void> {
  const info = await entryAt(path);
  if (info === null) throw new BackupError(`the backup holds no ${name}`);
  if (!info.isDirectory()) throw new BackupError(`${name} is ${kindOf(info)}, not a folder`);
}

/**
 * Opens a file of the backup for reading, refusing anything but a regular file of ours. `name` is
 * how messages call it (its path inside the backup). The caller closes the handle.
 */
async function openBackupFile(path: string, name: string): Promise<{ handle: FileHandle; size: number }> {
  const before = await entryAt(path);
  if (before === null) throw new BackupError(`the backup holds no ${name}`);
  assertOwnRegularFile(before, name);
  let handle: FileHandle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new BackupError(`${name} is a link: a backup holds only regular files`);
    if (code === "ENOENT") throw new BackupError(`the backup holds no ${name}`);
    throw error;
  }
  try {
    // What was opened is what was checked: the same file, still a regular one of ours.
    const opened = await handle.stat();
    assertOwnRegularFile(opened, name);
    if (opened.ino !== before.ino || opened.dev !== before.dev)
      throw new BackupError(`${name} changed while the restore read it`);
    return { handle, size: opened.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A small file of the backup read whole (the manifest, the jwt-secret), refused past `maxBytes`. */
export async function readBackupFile(path: string, name: string, maxBytes: number): Promise<Uint8Array> {
  const { handle, size } = await openBackupFile(path, name);
  try {
    if (size > maxBytes) throw new BackupError(`${name} is ${size} bytes, more than a backup's ${maxBytes}`);
    const bytes = new Uint8Array(size);
    const { bytesRead } = await handle.read(bytes, 0, size, 0);
    if (bytesRead !== size) throw new BackupError(`${name} changed while the restore read it`);
    return bytes;
  } finally {
    await handle.close();
  }
}

/**
 * Copies a file of the backup into a new file at `destination` (which must not exist) from the
 * descriptor that was checked, never by its path again. With `hash`, chunk by chunk, returning
 * the sha256 of what it copied for the caller to compare (the blobs); without, by the kernel's
 * copy (the database, hundreds of MiB), synced to disk.
 */
export async function copyBackupFile(
  path: string,
  name: string,
  destination: string,
  options: { hash: boolean },
): Promise<{ sha256: string | null; size: number }> {
  const source = await openBackupFile(path, name);
  try {
    const target = await open(destination, "wx", 0o600);
    try {
      if (!options.hash) {
        const size = await Bun.write(Bun.file(target.fd), Bun.file(source.handle.fd));
        if (size !== source.size) throw new BackupError(`${name} changed while the restore read it`);
        await target.sync();
        return { sha256: null, size };
      }
      // Blobs are many and small: not synced one by one (thousands of fsyncs took seconds), as
      // the copies of earlier versions were not.
      const hasher = new Bun.CryptoHasher("sha256");
      const buffer = new Uint8Array(Math.min(CHUNK_BYTES, Math.max(source.size, 1)));
      let size = 0;
      for (;;) {
        const { bytesRead } = await source.handle.read(buffer, 0, buffer.length, size);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        hasher.update(chunk);
        await target.write(chunk, 0, bytesRead, size);
        size += bytesRead;
      }
      if (size !== source.size) throw new BackupError(`${name} changed while the restore read it`);
      return { sha256: hasher.digest("hex"), size };
    } finally {
      await target.close();
    }
  } finally {
    await source.handle.close();
  }
}
