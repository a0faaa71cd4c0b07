// Blobs in an S3-compatible bucket (STORAGE=s3, README, Storage), through Bun's built-in S3Client.
// An upload is spooled and checked in a local temp file exactly as on disk, then written to
// `<prefix>blobs/<sha256>` (multipart, a few parts in memory at most) before the caller records
// any row: a crash at any step leaves at most an object no row names, which the cleanup job
// removes after its grace. Every call to the bucket has a time limit; a bucket that cannot be
// reached or refuses becomes a 503 with Retry-After, never a 500 or a hung request.
import { join } from "node:path";
import { S3Client, type S3File } from "bun";
import type { StorageConfig } from "../config";
import { AppError } from "../lib/problems";
import { DEFAULT_BLOB_GRACE_MS, reuseFreshMs } from "./blob-grace";
import {
  type BlobInfo,
  type BlobRange,
  type BlobSource,
  type BlobStorage,
  type ByteSource,
  type Delivery,
  LocalBlobStore,
  OWNER_MARKER,
  ownersIn,
  SHA256_HEX,
  spoolUpload,
  type WriteOptions,
  type WrittenBlob,
} from "./blob-store";
import { bucketFailureFields } from "./s3-failure";

export type S3StorageConfig = Extract<StorageConfig, { driver: "s3" }>;

/** Metadata calls (HEAD, DELETE, a list page, the first bytes of a GET). */
const CALL_TIMEOUT_MS = 10_000;
/** A part of a multipart upload: S3's minimum is 5 MiB; parts in flight are what memory holds. */
export const PART_SIZE = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** A whole upload may take this long per part, at least: a stalled bucket fails it, never hangs it. */
const PART_TIMEOUT_MS = 60_000;

/**
 * What a bucket failure is for clients: try again shortly. The cause is not theirs to see; the
 * request's log line says it (s3-failure.ts).
 */
function unavailable(error?: unknown): AppError {
  return new AppError("SERVICE_UNAVAILABLE", "The file storage cannot be reached; try again shortly.", {
    headers: { "Retry-After": "5" },
    logFields: { dependency: "storage", ...bucketFailureFields(error) },
  });
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === "NoSuchKey" || code === "ERR_S3_FILE_NOT_FOUND" || code === "ENOENT";
}

/** Runs a bucket call with a time limit; any failure but "no such key" becomes `unavailable`. */
async function bucketCall<T>(call: () => Promise<T>, timeoutMs = CALL_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unavailable()), timeoutMs);
  });
  try {
    return await Promise.race([call(), timeout]);
  } catch (error) {
    if (error instanceof AppError || isMissing(error)) throw error;
    throw unavailable(error);
  } finally {
    clearTimeout(timer);
  }
}

export class S3BlobStore implements BlobStorage {
  readonly client: S3Client;
  readonly owner: string | undefined;
  /** See reuseFreshMs: below the grace of the cleanup that runs with this store. */
  private readonly reuseFreshMs: number;
  private readonly prefix: string;
  /** Temp files of uploads being checked: in DATA_DIR, as with the local driver. */
  private readonly spool: LocalBlobStore;
  private readonly tempDir: string;

  constructor(
    private readonly config: S3StorageConfig,
    dataBlobsDir: string,
    options: { owner?: string; graceMs?: number } = {},
  ) {
    this.owner = options.owner;
    this.reuseFreshMs = reuseFreshMs(options.graceMs ?? DEFAULT_BLOB_GRACE_MS);
    this.client = new S3Client({
      bucket: config.bucket,
      endpoint: config.endpoint,
      region: config.region,
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      virtualHostedStyle: config.virtualHostedStyle,
    });
    this.prefix = `${config.prefix}blobs/`;
    this.spool = new LocalBlobStore(dataBlobsDir);
    this.tempDir = join(dataBlobsDir, "tmp");
  }

  keyOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new TypeError(`not a SHA-256 hex digest: ${sha256}`);
    return `${this.prefix}${sha256}`;
  }

  private file(sha256: string): S3File {
    return this.client.file(this.keyOf(sha256));
  }

  /** The deployment's owner marker of the blob, an empty object (see OWNER_MARKER). */
  private marker(sha256: string, owner: string): S3File {
    return this.client.file(`${this.keyOf(sha256)}${OWNER_MARKER}${owner}`);
  }

  init(): Promise<void> {
    return this.spool.init();
  }

  async exists(sha256: string): Promise<boolean> {
    return bucketCall(() => this.file(sha256).exists());
  }

  /** Last-Modified of the object, or null when there is none. */
  private async modifiedAt(sha256: string): Promise<Date | null> {
    try {
      const stat = await bucketCall(() => this.file(sha256).stat());
      return stat.lastModified;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async write<T = undefined>(source: ByteSource, options: WriteOptions<T>): Promise<WrittenBlob<T>> {
    const spooled = await spoolUpload(this.tempDir, source, options);
    try {
      // The marker first (a fresh Last-Modified each time): another deployment's cleanup that
      // lists the owners after this finds this deployment holding the object.
      const owner = this.owner;
      if (owner !== undefined) await bucketCall(() => this.marker(spooled.sha256, owner).write(""));
      const modified = await this.modifiedAt(spooled.sha256);
      if (!modified || Date.now() - modified.getTime() > this.reuseFreshMs) {
        await this.upload(spooled.tempPath, spooled.sha256, spooled.size);
      }
      return { sha256: spooled.sha256, size: spooled.size, inspected: spooled.inspected };
    } finally {
      await spooled.discard();
    }
  }

  /**
   * Copies the temp file into the bucket. Small files go in one PUT; larger ones through the
   * multipart writer, fed a part at a time and flushed before the next is read, so at most a
   * couple of parts are in memory. Measured with a 1 GiB file against Ceph RGW (Bun 1.4.5), peak
   * RSS of the process: this path 93 MiB, `write(Bun.file(path))` 121 MiB, the writer fed
   * without waiting 1,723 MiB (it buffers whatever it is given).
   */
  async upload(path: string, sha256: string, size: number): Promise<void> {
    const target = this.file(sha256);
    const timeoutMs = PART_TIMEOUT_MS * Math.max(1, Math.ceil(size / PART_SIZE));
    if (size <= PART_SIZE) {
      await bucketCall(() => target.write(Bun.file(path)), PART_TIMEOUT_MS);
      return;
    }
    await bucketCall(async () => {
      const writer = target.writer({ partSize: PART_SIZE, queueSize: PARTS_IN_FLIGHT, retry: 1 });
      try {
        const reader = Bun.file(path).stream().getReader();
        let pending = 0;
        while (true) {
          const { done, value } = await reader.read();
          if (done) break;
          writer.write(value);
          pending += value.byteLength;
          // Flushing a part's worth waits for the bytes to leave: the backpressure.
          if (pending >= PART_SIZE) {
            await writer.flush();
            pending = 0;
          }
        }
        await writer.end();
      } catch (error) {
        // Abandons the multipart upload; an unfinished one holds no object under the key.
        await Promise.resolve(writer.end(error as Error)).catch(() => {});
        throw error;
      }
    }, timeoutMs);
  }

  async remove(sha256: string): Promise<void> {
    await bucketCall(() => this.file(sha256).delete());
  }

  /**
   * Removes the object unless it was written again after `cutoff` (an upload renewing it). The
   * window between this HEAD and the DELETE is the only one left; no upload re-registers an
   * object older than half the grace without writing it afresh first.
   */
  async removeIfUnchangedSince(sha256: string, cutoff: Date): Promise<boolean> {
    const modified = await this.modifiedAt(sha256);
    if (!modified || modified.getTime() > cutoff.getTime()) return false;
    await this.remove(sha256);
    return true;
  }

  /** Every deployment with a marker on the object (one list call; keys sort after the object's). */
  async ownersOf(sha256: string): Promise<string[]> {
    const start = `${this.keyOf(sha256)}${OWNER_MARKER}`;
    const page = await bucketCall(() => this.client.list({ prefix: start, maxKeys: 1000 }));
    const names = (page.contents ?? []).map((object) => object.key.slice(this.prefix.length));
    const owners = ownersIn(names, sha256);
    // More than a page of owners: too many to tell, so treat the object as shared.
    if (page.isTruncated) owners.push("(more)");
    return owners;
  }

  /**
   * Gives up this deployment's marker, and removes the object when no other deployment has one
   * and it is unchanged since `cutoff`. A marker renewed since `cutoff` (an upload of this
   * deployment in flight) stays, and so does the object then.
   */
  async releaseIfUnchangedSince(sha256: string, cutoff: Date): Promise<boolean> {
    const owner = this.owner;
    if (owner === undefined) return false;
    const owners = await this.ownersOf(sha256);
    if (!owners.includes(owner)) return false;
    const marker = this.marker(sha256, owner);
    const markerModified = await bucketCall(() => marker.stat()).then(
      (stat) => stat.lastModified,
      (error) => {
        if (isMissing(error)) return null;
        throw error;
      },
    );
    if (!markerModified || markerModified.getTime() > cutoff.getTime()) return false;
    const removed = owners.length === 1 && (await this.removeIfUnchangedSince(sha256, cutoff));
    // Written again since the cutoff: the marker stays with it, so the next run can remove both.
    if (owners.length === 1 && !removed) return false;
    await bucketCall(() => marker.delete()).catch((error) => {
      if (!isMissing(error)) throw error;
    });
    return removed;
  }

  async adopt(sha256: string, replacing?: string): Promise<boolean> {
    const owner = this.owner;
    if (owner === undefined) throw new Error("this blob store has no deployment to adopt for");
    if (!(await this.exists(sha256))) return false;
    await bucketCall(() => this.marker(sha256, owner).write(""));
    if (replacing !== undefined && replacing !== owner)
      await bucketCall(() => this.marker(sha256, replacing).delete()).catch((error) => {
        if (!isMissing(error)) throw error;
      });
    return true;
  }

  /** Temp files live on this instance's own disk, as with the local driver. */
  removeStaleTempFiles(olderThanMs: number, now?: Date): Promise<number> {
    return this.spool.removeStaleTempFiles(olderThanMs, now);
  }

  removeOrphanedTempFiles(now?: Date): Promise<number> {
    return this.spool.removeOrphanedTempFiles(now);
  }

  /**
   * The spool folder has room, and the bucket answers a read with these credentials: a listing
   * of at most one key under the prefix (which the cleanup job needs the right to make anyway).
   * A read, not a write: a written probe object is a billable PUT on one hot key that providers
   * throttle, and /health is asked by anyone.
   */
  async probeStorage(): Promise<void> {
    await this.spool.probeStorage();
    await bucketCall(() => this.client.list({ prefix: this.prefix, maxKeys: 1 }), 2_000);
  }

  /** Every object under `<prefix>blobs/`, a page (1,000 keys) at a time. */
  async *listBlobs(): AsyncIterable<BlobInfo> {
    let startAfter: string | undefined;
    while (true) {
      const page = await bucketCall(() =>
        this.client.list({ prefix: this.prefix, maxKeys: 1000, ...(startAfter ? { startAfter } : {}) }),
      );
      const contents = page.contents ?? [];
      for (const object of contents) {
        const name = object.key.slice(this.prefix.length);
        if (!SHA256_HEX.test(name)) continue;
        yield {
          sha256: name,
          size: object.size ?? 0,
          mtimeMs: object.lastModified ? Date.parse(object.lastModified) : 0,
        };
      }
      if (!page.isTruncated || contents.length === 0) return;
      startAfter = contents[contents.length - 1]?.key;
    }
  }

  async readRange(sha256: string, start: number, end: number): Promise<Uint8Array> {
    // A ranged GET; an empty range asks the bucket nothing (S3 refuses `bytes=n-(n-1)`).
    if (end <= start) return new Uint8Array(0);
    return new Uint8Array(await bucketCall(() => this.file(sha256).slice(start, end).arrayBuffer()));
  }

  source(sha256: string, delivery: Delivery = "configured"): BlobSource {
    const file = this.file(sha256);
    if (this.config.downloads === "redirect" && delivery === "configured") {
      const expiresInSeconds = Math.max(1, Math.floor(this.config.presignTtlMs / 1000));
      return {
        kind: "redirect",
        // Signed locally: no call to the bucket.
        presign: ({ contentType, contentDisposition }) => ({
          url: file.presign({
            method: "GET",
            expiresIn: expiresInSeconds,
            type: contentType,
            ...(contentDisposition ? { contentDisposition } : {}),
          }),
          expiresInSeconds,
        }),
      };
    }
    return { kind: "bytes", read: (range) => streamObject(file, range) };
  }
}

/**
 * The object's bytes (or a range of them) as a stream that pulls from the bucket as the client
 * reads. The first chunk is awaited here, with a time limit, so that an unreachable bucket is a
 * 503 before any header is sent rather than a 200 cut short.
 */
async function streamObject(file: S3File, range: BlobRange | null): Promise<ReadableStream<Uint8Array>> {
  const part = range ? file.slice(range.start, range.end + 1) : file;
  const reader = part.stream().getReader();
  const first = await bucketCall(() => reader.read()).catch((error) => {
    reader.cancel().catch(() => {});
    throw isMissing(error) ? unavailable(error) : error;
  });
  let sentFirst = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sentFirst) {
        sentFirst = true;
        if (first.done) controller.close();
        else controller.enqueue(first.value);
        return;
      }
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
