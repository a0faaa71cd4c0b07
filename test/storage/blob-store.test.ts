import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { AppError } from "../../src/lib/problems";
import { type BlobInfo, LocalBlobStore } from "../../src/storage/blob-store";

let root: string;
let store: LocalBlobStore;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "bookdist-blobs-"));
  store = new LocalBlobStore(root);
  await store.init();
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Every file under the root, relative to it. */
function filesIn(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

function sha256Of(...chunks: Uint8Array[]): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const chunk of chunks) hasher.update(chunk);
  return hasher.digest("hex");
}

function bytes(length: number, seed = 1): Uint8Array {
  const data = new Uint8Array(length);
  for (let i = 0; i < length; i++) data[i] = (i * 31 + seed) & 0xff;
  return data;
}

async function* chunks(...parts: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield part;
}

/** A web stream that serves `count` chunks, then fails like a dropped connection. */
function failingStream(count: number, chunk: Uint8Array): ReadableStream<Uint8Array> {
  let served = 0;
  return new ReadableStream({
    pull(controller) {
      if (served++ < count) controller.enqueue(chunk);
      else controller.error(new Error("connection reset"));
    },
  });
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

async function listAll(): Promise<BlobInfo[]> {
  const blobs: BlobInfo[] = [];
  for await (const blob of store.listBlobs()) blobs.push(blob);
  return blobs;
}

describe("BlobStore.write", () => {
  test("stores the content under its SHA-256", async () => {
    const a = bytes(100_000, 1);
    const b = bytes(50_000, 2);
    const written = await store.write(chunks(a, b), { maxBytes: 1_000_000 });
    expect(written.sha256).toBe(sha256Of(a, b));
    expect(written.size).toBe(150_000);
    expect(written.inspected).toBeUndefined();
    const path = store.pathOf(written.sha256);
    expect(path).toBe(join(root, written.sha256.slice(0, 2), written.sha256));
    expect(Buffer.from(readFileSync(path)).equals(Buffer.concat([a, b]))).toBe(true);
    expect(await store.exists(written.sha256)).toBe(true);
    expect(filesIn(root)).toEqual([join(written.sha256.slice(0, 2), written.sha256)]);
  });

  test("takes a web ReadableStream", async () => {
    const data = bytes(70_000);
    const written = await store.write(new Blob([data]).stream(), { maxBytes: 70_000 });
    expect(written.sha256).toBe(sha256Of(data));
    expect(written.size).toBe(70_000);
  });

  test("passes the complete temp file to inspect and returns its result", async () => {
    const data = bytes(4096);
    const written = await store.write(chunks(data), {
      maxBytes: 10_000,
      inspect: async (tempPath, size) => {
        expect(relative(root, tempPath).startsWith("tmp")).toBe(true);
        expect(tempPath.endsWith(".part")).toBe(true);
        expect(Buffer.from(readFileSync(tempPath)).equals(Buffer.from(data))).toBe(true);
        return { checked: size };
      },
    });
    expect(written.inspected).toEqual({ checked: 4096 });
  });

  test("identical writes share one blob", async () => {
    const data = bytes(10_000);
    const first = await store.write(chunks(data), { maxBytes: 10_000 });
    const second = await store.write(chunks(data.subarray(0, 5000), data.subarray(5000)), {
      maxBytes: 10_000,
    });
    expect(second.sha256).toBe(first.sha256);
    expect(filesIn(root)).toEqual([join(first.sha256.slice(0, 2), first.sha256)]);
    expect(await listAll()).toHaveLength(1);
  });

  test("an empty source is a valid, empty blob", async () => {
    const written = await store.write(chunks(), { maxBytes: 10 });
    expect(written.size).toBe(0);
    expect(written.sha256).toBe(sha256Of());
  });

  test("refuses content over maxBytes as soon as it passes the limit", async () => {
    let pulled = 0;
    async function* endless(): AsyncIterable<Uint8Array> {
      while (true) {
        pulled++;
        yield bytes(1024);
      }
    }
    const error = await caught(store.write(endless(), { maxBytes: 10 * 1024 }));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("PAYLOAD_TOO_LARGE");
    expect(pulled).toBe(11);
    expect(filesIn(root)).toEqual([]);
  });

  test("accepts content of exactly maxBytes", async () => {
    const written = await store.write(chunks(bytes(1024)), { maxBytes: 1024 });
    expect(written.size).toBe(1024);
  });

  test("an inspect failure leaves nothing behind", async () => {
    const error = await caught(
      store.write(chunks(bytes(2048)), {
        maxBytes: 10_000,
        inspect: async () => {
          throw new AppError("UNSUPPORTED_MEDIA_TYPE", "The file is not a PNG image.");
        },
      }),
    );
    expect((error as AppError).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(filesIn(root)).toEqual([]);
  });

  test("a source that fails mid-way (client abort) leaves no temp file", async () => {
    const error = await caught(store.write(failingStream(5, bytes(64 * 1024)), { maxBytes: 10_000_000 }));
    expect((error as Error).message).toBe("connection reset");
    expect(filesIn(root)).toEqual([]);
  });

  test("an async iterable that throws leaves no temp file", async () => {
    async function* broken(): AsyncIterable<Uint8Array> {
      yield bytes(1000);
      throw new Error("aborted");
    }
    await caught(store.write(broken(), { maxBytes: 10_000 }));
    expect(filesIn(root)).toEqual([]);
  });

  test("stopping early cancels a web stream source", async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(bytes(1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    await caught(store.write(stream, { maxBytes: 4096 }));
    expect(cancelled).toBe(true);
  });
});

describe("BlobStore housekeeping", () => {
  test("remove deletes a blob", async () => {
    const { sha256 } = await store.write(chunks(bytes(10)), { maxBytes: 10 });
    await store.remove(sha256);
    expect(await store.exists(sha256)).toBe(false);
    await store.remove(sha256); // removing twice is fine
  });

  test("pathOf refuses anything but a SHA-256 hex digest", () => {
    expect(() => store.pathOf("../../etc/passwd")).toThrow(TypeError);
    expect(() => store.pathOf("A".repeat(64))).toThrow(TypeError);
  });

  test("listBlobs lists blobs with size and mtime, and ignores temp files and strays", async () => {
    const one = await store.write(chunks(bytes(10, 1)), { maxBytes: 100 });
    const two = await store.write(chunks(bytes(20, 2)), { maxBytes: 100 });
    // What a crash mid-upload leaves behind, and files nobody should have put there.
    writeFileSync(join(root, "tmp", "crashed.part"), bytes(5));
    writeFileSync(join(root, one.sha256.slice(0, 2), "notes.txt"), "stray");
    writeFileSync(join(root, "README"), "stray");

    const listed = await listAll();
    expect(listed.map((blob) => blob.sha256).sort()).toEqual([one.sha256, two.sha256].sort());
    const first = listed.find((blob) => blob.sha256 === one.sha256);
    expect(first?.size).toBe(10);
    expect(first?.mtimeMs).toBeGreaterThan(0);
  });

  test("removeStaleTempFiles removes only temp files older than the threshold", async () => {
    const old = join(root, "tmp", "old.part");
    const young = join(root, "tmp", "young.part");
    writeFileSync(old, bytes(5));
    writeFileSync(young, bytes(5));
    const now = new Date();
    const twoHoursAgo = new Date(now.getTime() - 2 * 3_600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);

    expect(await store.removeStaleTempFiles(3 * 3_600_000, now)).toBe(0);
    expect(await store.removeStaleTempFiles(3_600_000, now)).toBe(1);
    expect(readdirSync(join(root, "tmp"))).toEqual(["young.part"]);
    expect(await listAll()).toEqual([]);
  });

  test("an uninitialised or empty root lists nothing", async () => {
    const empty = new LocalBlobStore(join(root, "missing"));
    const listed: BlobInfo[] = [];
    for await (const blob of empty.listBlobs()) listed.push(blob);
    expect(listed).toEqual([]);
    expect(await empty.removeStaleTempFiles(0)).toBe(0);
  });
});
