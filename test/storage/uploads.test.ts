import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { AppError } from "../../src/lib/problems";
import { LocalBlobStore } from "../../src/storage/blob-store";
import { receiveUpload } from "../../src/storage/uploads";

const URL_ = "http://localhost/upload";
const BOUNDARY = "----bookdist-test-boundary";
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

let root: string;
let blobs: LocalBlobStore;

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "bookdist-uploads-"));
  blobs = new LocalBlobStore(root);
  await blobs.init();
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function filesIn(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)));
}

function sha256Of(data: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

const encoder = new TextEncoder();

function partHead(name: string, filename?: string): string {
  const file = filename === undefined ? "" : `; filename="${filename}"`;
  const type = filename === undefined ? "" : "\r\nContent-Type: application/octet-stream";
  return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${file}${type}\r\n\r\n`;
}

/** A complete multipart body: text fields and one file part in the given order. */
function multipart(parts: { name: string; filename?: string; data: Uint8Array | string }[]): Uint8Array {
  const pieces: Uint8Array[] = [];
  for (const part of parts) {
    pieces.push(encoder.encode(partHead(part.name, part.filename)));
    pieces.push(typeof part.data === "string" ? encoder.encode(part.data) : part.data);
    pieces.push(encoder.encode("\r\n"));
  }
  pieces.push(encoder.encode(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(pieces);
}

/** Serves `body` in chunks of `chunkSize`, counting how many were pulled, and whether it was cancelled. */
function countingStream(body: Uint8Array, chunkSize: number) {
  const state = { pulled: 0, cancelled: false, total: Math.ceil(body.byteLength / chunkSize) };
  // highWaterMark 0: the stream pulls only when the reader asks, so `pulled` counts real reads.
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const start = state.pulled * chunkSize;
        if (start >= body.byteLength) return controller.close();
        state.pulled++;
        controller.enqueue(body.subarray(start, start + chunkSize));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

function streamedRequest(body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Request {
  return new Request(URL_, { method: "POST", body, headers: { "Content-Type": MULTIPART, ...headers } });
}

const accept = async (_path: string, size: number) => ({ size });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("receiveUpload", () => {
  test("stores the file of a FormData request", async () => {
    const form = new FormData();
    form.append("title", "ignored");
    form.append("file", new File(["hello cover"], "cover.png", { type: "image/png" }));
    form.append("after", "ignored too");
    const request = new Request(URL_, { method: "POST", body: form });

    const upload = await receiveUpload(request, { maxBytes: 1024, blobs, inspect: accept });
    expect(upload).toEqual({
      sha256: sha256Of("hello cover"),
      size: 11,
      filename: "cover.png",
      inspected: { size: 11 },
    });
    expect(readFileSync(blobs.pathOf(upload.sha256), "utf8")).toBe("hello cover");
    expect(filesIn(root)).toHaveLength(1);
  });

  test("keeps a Unicode filename", async () => {
    const form = new FormData();
    form.append("file", new File(["x"], "Bücher – Teil 1.apk"));
    const upload = await receiveUpload(new Request(URL_, { method: "POST", body: form }), {
      maxBytes: 1024,
      blobs,
      inspect: accept,
    });
    expect(upload.filename).toBe("Bücher – Teil 1.apk");
  });

  test("parses a hand-built body streamed in tiny chunks, ignoring other files and fields", async () => {
    const data = new Uint8Array(20_000).map((_, i) => (i * 7) & 0xff);
    const body = multipart([
      { name: "note", data: "first" },
      { name: "other", filename: "other.bin", data: "not this one" },
      { name: "file", filename: "app.apk", data },
      { name: "note", data: "last" },
    ]);
    const { stream, state } = countingStream(body, 7);
    const upload = await receiveUpload(streamedRequest(stream), { maxBytes: 20_000, blobs, inspect: accept });
    expect(upload.sha256).toBe(sha256Of(data));
    expect(upload.size).toBe(20_000);
    expect(upload.filename).toBe("app.apk");
    expect(state.pulled).toBe(state.total);
    expect(filesIn(root)).toHaveLength(1);
  });

  test("a file part without a filename is still the file; its filename is null", async () => {
    const body = multipart([{ name: "file", data: "plain part" }]);
    const upload = await receiveUpload(streamedRequest(countingStream(body, 1024).stream), {
      maxBytes: 100,
      blobs,
      inspect: accept,
    });
    expect(upload).toMatchObject({ sha256: sha256Of("plain part"), size: 10, filename: null });
  });

  test("takes the part named by fieldName", async () => {
    const form = new FormData();
    form.append("file", new File(["wrong"], "a.bin"));
    form.append("cover", new File(["right"], "b.png"));
    const upload = await receiveUpload(new Request(URL_, { method: "POST", body: form }), {
      fieldName: "cover",
      maxBytes: 100,
      blobs,
      inspect: accept,
    });
    expect(upload.sha256).toBe(sha256Of("right"));
  });

  test("refuses a body that is not multipart/form-data", async () => {
    for (const contentType of ["application/json", "multipart/form-data", "text/plain; boundary=x"]) {
      const request = new Request(URL_, {
        method: "POST",
        body: "{}",
        headers: { "Content-Type": contentType },
      });
      const error = await refusal(receiveUpload(request, { maxBytes: 100, blobs, inspect: accept }));
      expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
      expect(error.status).toBe(415);
    }
  });

  test("refuses a form without the file part", async () => {
    const form = new FormData();
    form.append("title", "no file here");
    form.append("other", new File(["x"], "x.bin"));
    const error = await refusal(
      receiveUpload(new Request(URL_, { method: "POST", body: form }), {
        maxBytes: 100,
        blobs,
        inspect: accept,
      }),
    );
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.status).toBe(400);
    expect(error.errors?.[0]?.path).toBe("file");
    expect(filesIn(root)).toEqual([]);
  });

  test("refuses a too large Content-Length before reading anything", async () => {
    const { stream, state } = countingStream(new Uint8Array(10), 10);
    const request = streamedRequest(stream, { "Content-Length": String(2 * 1024 * 1024) });
    const error = await refusal(receiveUpload(request, { maxBytes: 1024 * 1024, blobs, inspect: accept }));
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(state.pulled).toBe(0);
  });

  test("refuses a too large file while streaming, long before the body ends", async () => {
    const chunkSize = 64 * 1024;
    const data = new Uint8Array(50 * 1024 * 1024);
    const body = multipart([{ name: "file", filename: "big.apk", data }]);
    const { stream, state } = countingStream(body, chunkSize);
    let inspected = false;
    const error = await refusal(
      receiveUpload(streamedRequest(stream), {
        maxBytes: 1024 * 1024,
        blobs,
        inspect: async () => {
          inspected = true;
        },
      }),
    );
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
    expect(error.status).toBe(413);
    // 1 MiB is 16 chunks; a little read-ahead is fine, reading the 800 chunks is not.
    expect(state.pulled).toBeLessThan(40);
    expect(state.total).toBeGreaterThan(800);
    expect(state.cancelled).toBe(true);
    expect(inspected).toBe(false);
    expect(filesIn(root)).toEqual([]);
  });

  test.each([
    ["exactly at the limit", 0, "ok"],
    ["one byte over", 1, "PAYLOAD_TOO_LARGE"],
    ["a little over", 5000, "PAYLOAD_TOO_LARGE"],
  ])("a file %s, in a body under the body limit", async (_, extra, expected) => {
    const maxBytes = 256 * 1024;
    const body = multipart([
      { name: "file", filename: "edge.apk", data: new Uint8Array(maxBytes + extra).fill(7) },
      { name: "note", data: "after" },
    ]);
    for (const chunkSize of [1000, 64 * 1024, body.byteLength]) {
      const result = await receiveUpload(streamedRequest(countingStream(body, chunkSize).stream), {
        maxBytes,
        blobs,
        inspect: accept,
      }).then(
        (upload) => (upload.size === maxBytes ? "ok" : "wrong size"),
        (error: unknown) => (error instanceof AppError ? error.code : String(error)),
      );
      expect(result).toBe(expected);
      expect(filesIn(root)).toHaveLength(expected === "ok" ? 1 : 0);
      rmSync(join(root, "tmp"), { recursive: true, force: true });
      for (const shard of readdirSync(root)) rmSync(join(root, shard), { recursive: true, force: true });
      await blobs.init();
    }
  });

  test("refuses an endless body of other parts", async () => {
    const filler = multipart(Array.from({ length: 40 }, () => ({ name: "junk", data: "x".repeat(60_000) })));
    const { stream } = countingStream(filler, 64 * 1024);
    const error = await refusal(
      receiveUpload(streamedRequest(stream), { maxBytes: 1024, blobs, inspect: accept }),
    );
    expect(error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("a body that fails mid-file leaves no file", async () => {
    const head = encoder.encode(partHead("file", "app.apk"));
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled === 1) controller.enqueue(head);
        else if (pulled < 20) controller.enqueue(new Uint8Array(64 * 1024).fill(pulled));
        else controller.error(new Error("connection reset by peer"));
      },
    });
    const error = await refusal(
      receiveUpload(streamedRequest(stream), { maxBytes: 10 * 1024 * 1024, blobs, inspect: accept }),
    );
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.message).toBe("The request body could not be read to its end.");
    expect(filesIn(root)).toEqual([]);
  });

  test("a body that ends before the closing boundary leaves no file", async () => {
    const complete = multipart([{ name: "file", filename: "a.png", data: new Uint8Array(5000).fill(1) }]);
    const cut = complete.subarray(0, complete.byteLength - 200);
    const error = await refusal(
      receiveUpload(streamedRequest(countingStream(cut, 1000).stream), {
        maxBytes: 10_000,
        blobs,
        inspect: accept,
      }),
    );
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.message).toBe("The multipart body is malformed or ends early.");
    expect(filesIn(root)).toEqual([]);
  });

  test("a file followed by a broken body is not published", async () => {
    const complete = multipart([
      { name: "file", filename: "a.png", data: "complete file" },
      { name: "note", data: "x".repeat(5000) },
    ]);
    const cut = complete.subarray(0, complete.byteLength - 1000);
    const error = await refusal(
      receiveUpload(streamedRequest(countingStream(cut, 100).stream), {
        maxBytes: 10_000,
        blobs,
        inspect: accept,
      }),
    );
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.message).toBe("The multipart body is malformed or ends early.");
    expect(filesIn(root)).toEqual([]);
  });

  test("an inspect refusal passes through and leaves no file", async () => {
    const form = new FormData();
    form.append("file", new File(["not a png"], "cover.png"));
    const error = await refusal(
      receiveUpload(new Request(URL_, { method: "POST", body: form }), {
        maxBytes: 100,
        blobs,
        inspect: async () => {
          throw new AppError("UNSUPPORTED_MEDIA_TYPE", "The file is not a PNG image.");
        },
      }),
    );
    expect(error.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(filesIn(root)).toEqual([]);
  });
});
