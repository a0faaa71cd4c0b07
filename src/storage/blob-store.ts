// Content-addressed files: <root>/<first 2 hex>/<sha256>. A blob appears under its final name
// only once it is complete, checked and on disk, so a crash never leaves a half file visible.
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, statSync, unlinkSync } from "node:fs";
import {
  type FileHandle,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  stat,
  statfs,
  utimes,
  writeFile,
} from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "../lib/problems";

export type ByteSource = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

export interface WriteOptions<T> {
  maxBytes: number;
  /**
   * Runs on the complete temp file before `inspect` and may replace what is stored: it writes the
   * new content to `outputPath` (a temp file of the same store) and answers true, and the blob is
   * then that file, hashed and sized afresh (a JPEG cover becomes a PNG, cover-image.ts); false
   * keeps the file as sent. A throw discards the upload.
   */
  convert?: (tempPath: string, size: number, outputPath: string) => Promise<boolean>;
  /** Runs on the complete temp file before it is published; a throw discards the upload. */
  inspect?: (tempPath: string, size: number) => Promise<T>;
}

export interface WrittenBlob<T> {
  sha256: string;
  size: number;
  inspected: T;
}

export interface BlobInfo {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** A byte range of a blob, both ends inclusive (as Content-Range counts). */
export interface BlobRange {
  start: number;
  end: number;
}

/**
 * How a download gets a blob's bytes: the app sends them (from disk, or streamed from the
 * bucket), or the client is sent to a presigned URL the bucket answers itself.
 */
export type BlobSource =
  | {
      kind: "bytes";
      /** The body for the whole blob or a range; rejects (503) when the bytes cannot be reached. */
      read(range: BlobRange | null): Promise<Blob | ReadableStream<Uint8Array>>;
    }
  | {
      kind: "redirect";
      /** A URL that answers the blob with these headers, expiring after `expiresInSeconds`. */
      presign(headers: { contentType: string; contentDisposition: string | undefined }): {
        url: string;
        expiresInSeconds: number;
      };
    };

/** Who sends a download's bytes: whatever the driver's configuration says, or the app itself. */
export type Delivery = "configured" | "app";

/**
 * Content-addressed uploaded files, whichever driver keeps them (STORAGE), as requests see them:
 * routes and services store a checked upload, make sure it is still there before the
 * transaction that records it, serve it, and ask /health whether uploads could be stored.
 */
export interface BlobStore {
  /**
   * Whether the blob is there. An upload asks it after `write`, before the transaction that
   * records the blob (services/files.ts): `write` left the blob younger than half the cleanup's
   * grace, and the cleanup removes none younger than the grace, so one that is there now is still
   * there at the commit.
   */
  exists(sha256: string): Promise<boolean>;
  /**
   * Streams the source into a local temp file while hashing it, refuses it past maxBytes, lets
   * `inspect` check the complete file, then publishes it under its hash. Resolves only once the
   * blob is durably stored and younger than half the cleanup's grace (written, renewed, or found
   * that young); on failure nothing is published and no temp file is left.
   */
  write<T = undefined>(source: ByteSource, options: WriteOptions<T>): Promise<WrittenBlob<T>>;
  /**
   * How a download gets the blob. `"app"`: its bytes, streamed through the app, even where
   * downloads go to the bucket (S3_DOWNLOADS=redirect): the console's cover preview, whose CSP
   * admits images of its own origin only.
   */
  source(sha256: string, delivery?: Delivery): BlobSource;
  /** For /health: throws when uploads could not be stored now. */
  probeStorage(): Promise<void>;
}

/**
 * What start-up, the cleanup job (jobs/blob-cleanup.ts) and `bun run storage adopt` do to the
 * blobs: temp files, listings, owner markers, removals. Requests never call these.
 */
export interface BlobMaintenance {
  /**
   * The deployment whose owner marker `write` puts beside each blob (README "Storage"); undefined
   * (a CLI that only reads or copies): no marker is written and `release…` removes nothing.
   */
  readonly owner: string | undefined;
  init(): Promise<void>;
  /** Removes the blob unless it was (re)written after `cutoff`; true when this call removed it. */
  removeIfUnchangedSince(sha256: string, cutoff: Date): Promise<boolean>;
  /**
   * What the cleanup calls for a blob its deployment no longer names and unchanged since `cutoff`:
   * gives up this deployment's owner marker, and removes the blob too when no other deployment has
   * one. A blob without this deployment's marker is not touched (another deployment's, or one from
   * before markers). The local driver does it synchronously, inside the cleanup's transaction
   * under the blob's lock; true when the blob went.
   */
  releaseSync?(sha256: string, cutoff: Date): boolean;
  /** `releaseSync` for a bucket, after the transaction: the marker too stays when renewed since `cutoff`. */
  releaseIfUnchangedSince(sha256: string, cutoff: Date): Promise<boolean>;
  /**
   * Puts this deployment's owner marker beside an existing blob (`storage adopt`) and removes the
   * marker of `replacing` (the deployment this one was restored from and replaces), if given;
   * false when there is no blob.
   */
  adopt(sha256: string, replacing?: string): Promise<boolean>;
  /** The deployments with an owner marker on the blob. */
  ownersOf(sha256: string): Promise<string[]>;
  removeStaleTempFiles(olderThanMs: number, now?: Date): Promise<number>;
  removeOrphanedTempFiles(now?: Date): Promise<number>;
  listBlobs(): AsyncIterable<BlobInfo>;
  /**
   * The blob's bytes from `start` to `end` (exclusive; fewer at its end): what jobs read of a stored
   * file without fetching all of it (the archive recognition's backfill, jobs/archive-formats.ts).
   */
  readRange(sha256: string, start: number, end: number): Promise<Uint8Array>;
}

/** A driver: what requests use and what maintenance uses, as `createBlobStore` makes it. */
export type BlobStorage = BlobStore & BlobMaintenance;

/** A blob's name: its SHA-256, 64 lower-case hex digits (a path or key is made of nothing else). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;
const SHARD = /^[0-9a-f]{2}$/;
/**
 * Beside a blob, `<sha256>.owner-<deployment id>` (an empty file, or an empty object in the
 * bucket) says which deployments wrote it. Separate markers rather than one owner field: two
 * deployments sharing DATA_DIR or a bucket may write the same bytes, and each must keep them
 * while it names them. Listings of blobs skip these names (not 64 hex digits).
 */
export const OWNER_MARKER = ".owner-";

/** The deployment ids of the owner markers among `names` for the blob. */
export function ownersIn(names: Iterable<string>, sha256: string): string[] {
  const start = `${sha256}${OWNER_MARKER}`;
  const owners: string[] = [];
  for (const name of names) if (name.startsWith(start)) owners.push(name.slice(start.length));
  return owners;
}
const TEMP_SUFFIX = ".part";
/**
 * Temp files are named `<instance id>.<uuid>.part`, the instance id being random per process.
 * Whose a file is does not decide whether it may go: its lease does. The upload writing it
 * touches it every few seconds (LEASE_REFRESH_MS), so a temp file untouched for TEMP_LEASE_MS
 * belongs to no running upload, on this machine or any other sharing the volume, whatever PID
 * namespaces they run in (a pid says nothing across containers).
 */
const INSTANCE_ID = randomUUID();
const LEASE_REFRESH_MS = 5_000;
const TEMP_LEASE_MS = 2 * 60 * 1000;
/** /health calls the volume full below this: an upload or the database's next pages need room. */
const MIN_FREE_BYTES = 1024 * 1024;

/** Keeps a temp file's lease alive (its mtime fresh) until the returned function is called. */
function holdLease(path: string): () => void {
  const timer = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, LEASE_REFRESH_MS);
  return () => clearInterval(timer);
}

/** Reads a web stream through its reader so that stopping early cancels it (the client's upload). */
async function* chunksOf(source: ByteSource): AsyncIterable<Uint8Array> {
  if (!(source instanceof ReadableStream)) {
    yield* source;
    return;
  }
  const reader = source.getReader();
  let done = false;
  try {
    while (true) {
      const result = await reader.read();
      if (result.done) {
        done = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let written = 0;
  while (written < chunk.byteLength) {
    const result = await handle.write(chunk, written, chunk.byteLength - written);
    written += result.bytesWritten;
  }
}

/** Makes a rename durable. Not every platform can open a directory, and the rename already happened. */
async function syncDirectory(path: string): Promise<void> {
  try {
    const handle = await open(path, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

/** A complete, checked upload in a temp file, until `discard` removes it (and ends its lease). */
export interface SpooledUpload<T> extends WrittenBlob<T> {
  tempPath: string;
  discard(): Promise<void>;
}

/**
 * Streams the source into a temp file in `tempDir` while hashing it, refuses it as soon as it
 * passes maxBytes, lets `convert` replace it (WriteOptions) and `inspect` check the complete file. On failure the temp file
 * is gone and the error is rethrown; on success the caller publishes it, then calls `discard`.
 */
export async function spoolUpload<T>(
  tempDir: string,
  source: ByteSource,
  options: WriteOptions<T>,
): Promise<SpooledUpload<T>> {
  const tempPath = newTempPath(tempDir);
  let handle = await open(tempPath, "wx");
  const releaseLease = holdLease(tempPath);
  // The converted file, while it is not yet in tempPath's place.
  let outputPath: string | undefined;
  const discard = async () => {
    releaseLease();
    await rm(tempPath, { force: true }).catch(() => {});
    if (outputPath !== undefined) await rm(outputPath, { force: true }).catch(() => {});
  };
  let handleOpen = true;
  try {
    let hasher = new Bun.CryptoHasher("sha256");
    let size = 0;
    // Awaiting each write before pulling the next chunk is the backpressure: memory stays
    // at a chunk or two whatever the upload's size.
    for await (const chunk of chunksOf(source)) {
      size += chunk.byteLength;
      if (size > options.maxBytes) {
        throw new AppError(
          "PAYLOAD_TOO_LARGE",
          `The file is larger than the limit of ${options.maxBytes} bytes.`,
        );
      }
      hasher.update(chunk);
      await writeAll(handle, chunk);
    }

    if (options.convert) {
      outputPath = newTempPath(tempDir);
      const releaseOutput = holdLease(outputPath);
      try {
        if (await options.convert(tempPath, size, outputPath)) {
          // The converted file takes the upload's place (and its lease), and is what gets hashed.
          handleOpen = false;
          await handle.close();
          await rename(outputPath, tempPath);
          outputPath = undefined;
          handle = await open(tempPath, "r+");
          handleOpen = true;
          ({ hasher, size } = await hashFile(handle));
        }
      } finally {
        releaseOutput();
        if (outputPath !== undefined) await rm(outputPath, { force: true }).catch(() => {});
        outputPath = undefined;
      }
    }

    const inspected = options.inspect ? await options.inspect(tempPath, size) : (undefined as T);
    await handle.sync();
    handleOpen = false;
    await handle.close();
    return { sha256: hasher.digest("hex"), size, inspected, tempPath, discard };
  } catch (error) {
    if (handleOpen) await handle.close().catch(() => {});
    await discard();
    throw error;
  }
}

function newTempPath(tempDir: string): string {
  return join(tempDir, `${INSTANCE_ID}.${randomUUID()}${TEMP_SUFFIX}`);
}

/** The SHA-256 and size of an open file, read a piece at a time. */
async function hashFile(handle: FileHandle): Promise<{ hasher: Bun.CryptoHasher; size: number }> {
  const hasher = new Bun.CryptoHasher("sha256");
  const piece = Buffer.allocUnsafe(256 * 1024);
  let size = 0;
  while (true) {
    const { bytesRead } = await handle.read(piece, 0, piece.byteLength, size);
    if (bytesRead === 0) return { hasher, size };
    hasher.update(piece.subarray(0, bytesRead));
    size += bytesRead;
  }
}

export class LocalBlobStore implements BlobStorage {
  readonly root: string;
  readonly owner: string | undefined;
  /** Inside the root so that the final rename stays on one filesystem and is atomic. */
  private readonly tempDir: string;

  constructor(root: string, owner?: string) {
    this.root = root;
    this.owner = owner;
    this.tempDir = join(root, "tmp");
  }

  /** This deployment's owner marker of the blob (see OWNER_MARKER). */
  private markerOf(sha256: string, owner: string): string {
    return `${this.pathOf(sha256)}${OWNER_MARKER}${owner}`;
  }

  async init(): Promise<void> {
    await mkdir(this.tempDir, { recursive: true });
  }

  pathOf(sha256: string): string {
    // The hash becomes a path: anything but 64 hex digits could walk out of the root.
    if (!SHA256_HEX.test(sha256)) throw new TypeError(`not a SHA-256 hex digest: ${sha256}`);
    return join(this.root, sha256.slice(0, 2), sha256);
  }

  async exists(sha256: string): Promise<boolean> {
    return Bun.file(this.pathOf(sha256)).exists();
  }

  /**
   * Streams the source into a temp file while hashing it, refuses it as soon as it passes
   * maxBytes, lets `inspect` check the complete file, then publishes it under its hash.
   * On any failure the temp file is removed and the error is rethrown.
   */
  async write<T = undefined>(source: ByteSource, options: WriteOptions<T>): Promise<WrittenBlob<T>> {
    const spooled = await spoolUpload(this.tempDir, source, options);
    try {
      const { sha256, tempPath } = spooled;
      const finalPath = this.pathOf(sha256);
      const shardDir = join(this.root, sha256.slice(0, 2));
      await mkdir(shardDir, { recursive: true });
      // The marker first: another deployment's cleanup that sees the blob unnamed by its own
      // records then finds this deployment still holding it.
      if (this.owner !== undefined) await writeFile(this.markerOf(sha256, this.owner), "");
      if (await Bun.file(finalPath).exists()) {
        // Same hash, same bytes: identical uploads share one blob. Touching it tells a cleanup
        // job that judges unreferenced blobs by age that this one is in use again.
        const now = new Date();
        await utimes(finalPath, now, now);
      } else {
        await rename(tempPath, finalPath);
        await syncDirectory(shardDir);
      }
      return { sha256, size: spooled.size, inspected: spooled.inspected };
    } finally {
      await spooled.discard();
    }
  }

  async remove(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  async removeIfUnchangedSince(sha256: string, cutoff: Date): Promise<boolean> {
    const info = await stat(this.pathOf(sha256)).catch(() => null);
    if (!info || info.mtimeMs > cutoff.getTime()) return false;
    return this.unlinkBlob(sha256);
  }

  async readRange(sha256: string, start: number, end: number): Promise<Uint8Array> {
    return new Uint8Array(await Bun.file(this.pathOf(sha256)).slice(start, end).arrayBuffer());
  }

  source(sha256: string): BlobSource {
    const path = this.pathOf(sha256);
    // Bun sends a file body with sendfile: nothing of it passes through memory.
    return {
      kind: "bytes",
      read: async (range) => (range ? Bun.file(path).slice(range.start, range.end + 1) : Bun.file(path)),
    };
  }

  /** Removes the blob's file at once (callable inside a SQLite transaction); false if it was gone. */
  private unlinkBlob(sha256: string): boolean {
    try {
      unlinkSync(this.pathOf(sha256));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }

  async ownersOf(sha256: string): Promise<string[]> {
    return ownersIn(await readdirOrEmpty(join(this.root, sha256.slice(0, 2))), sha256);
  }

  releaseSync(sha256: string, cutoff: Date): boolean {
    const owner = this.owner;
    if (owner === undefined) return false;
    const marker = this.markerOf(sha256, owner);
    if (!existsSync(marker)) return false;
    // Renewed since the cutoff: an upload stored these bytes again and records them next (see
    // BlobStore.exists). Asked in the same synchronous step as the unlink.
    const modified = statSync(this.pathOf(sha256), { throwIfNoEntry: false })?.mtimeMs;
    if (modified !== undefined && modified > cutoff.getTime()) return false;
    const names = readdirSync(join(this.root, sha256.slice(0, 2)));
    const shared = ownersIn(names, sha256).some((other) => other !== owner);
    // The blob first, the marker after: a crash in between leaves a marker without a blob (an
    // empty file, harmless), never a blob that no deployment would ever remove.
    const removed = shared ? false : this.unlinkBlob(sha256);
    unlinkIfPresent(marker);
    return removed;
  }

  async releaseIfUnchangedSince(sha256: string, cutoff: Date): Promise<boolean> {
    const info = await stat(this.pathOf(sha256)).catch(() => null);
    if (!info || info.mtimeMs > cutoff.getTime()) return false;
    return this.releaseSync(sha256, cutoff);
  }

  async adopt(sha256: string, replacing?: string): Promise<boolean> {
    if (this.owner === undefined) throw new Error("this blob store has no deployment to adopt for");
    if (!(await this.exists(sha256))) return false;
    await writeFile(this.markerOf(sha256, this.owner), "");
    if (replacing !== undefined && replacing !== this.owner)
      await rm(this.markerOf(sha256, replacing), { force: true });
    return true;
  }

  /** Removes temp files a crashed process left behind; young ones may belong to a running upload. */
  async removeStaleTempFiles(olderThanMs: number, now: Date = new Date()): Promise<number> {
    const cutoff = now.getTime() - olderThanMs;
    let removed = 0;
    for (const name of await readdirOrEmpty(this.tempDir)) {
      if (!name.endsWith(TEMP_SUFFIX)) continue;
      const path = join(this.tempDir, name);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile() || info.mtimeMs >= cutoff) continue;
      await rm(path, { force: true });
      removed++;
    }
    return removed;
  }

  /**
   * Removes temp files whose lease ran out: uploads cut off by a crash or SIGKILL (they never
   * became blobs). Run at start-up, so a crash leaves little behind; a live upload's file, of any
   * instance, is always younger than the lease.
   */
  removeOrphanedTempFiles(now: Date = new Date()): Promise<number> {
    return this.removeStaleTempFiles(TEMP_LEASE_MS, now);
  }

  /**
   * For /health: the volume has room left and takes a small write. Throws (ENOSPC, EROFS, …)
   * otherwise.
   */
  async probeStorage(): Promise<void> {
    const volume = await statfs(this.root);
    if (volume.bavail * volume.bsize < MIN_FREE_BYTES) throw new Error("the data volume is nearly full");
    const probe = join(this.tempDir, `${INSTANCE_ID}.health`);
    await writeFile(probe, "ok");
    await rm(probe, { force: true });
  }

  /** Every published blob; temp files and anything else in the tree are skipped. */
  async *listBlobs(): AsyncIterable<BlobInfo> {
    const shards = (await readdirOrEmpty(this.root)).filter((name) => SHARD.test(name)).sort();
    for (const shard of shards) {
      const names = (await readdirOrEmpty(join(this.root, shard))).sort();
      for (const name of names) {
        if (!SHA256_HEX.test(name) || !name.startsWith(shard)) continue;
        // A blob removed between readdir and stat is simply no longer listed.
        const info = await stat(join(this.root, shard, name)).catch(() => null);
        if (!info?.isFile()) continue;
        yield { sha256: name, size: info.size, mtimeMs: info.mtimeMs };
      }
    }
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

async function readdirOrEmpty(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
