// Streaming multipart uploads: the request body is parsed as it arrives and the file part goes
// straight into the blob store, so an upload costs a few chunks of memory, not its size.
// Request.formData() and Hono's parseBody() would hold the whole file in memory (a 1 GiB upload:
// 1–2 GiB).
import { once } from "node:events";
import { Busboy, type BusboyFileStream, type BusboyInstance } from "@fastify/busboy";
import { SINGLE_LINE } from "../lib/control-characters";
import { AppError } from "../lib/problems";
import type { BlobStore, WriteOptions, WrittenBlob } from "./blob-store";

/** Headers, boundaries and small form fields around the file. */
const MULTIPART_OVERHEAD = 64 * 1024;

export interface UploadOptions<T> {
  /** The multipart part that carries the file; "file" unless the route says otherwise. */
  fieldName?: string;
  maxBytes: number;
  blobs: BlobStore;
  /** Replaces the received file before it is checked and stored (WriteOptions.convert). */
  convert?: WriteOptions<T>["convert"];
  inspect: (tempPath: string, size: number) => Promise<T>;
}

export interface ReceivedUpload<T> {
  sha256: string;
  size: number;
  filename: string | null;
  inspected: T;
}

const notMultipart = () =>
  new AppError("UNSUPPORTED_MEDIA_TYPE", "The request body must be multipart/form-data with a boundary.");
const tooLarge = (maxBytes: number) =>
  new AppError("PAYLOAD_TOO_LARGE", `The file is larger than the limit of ${maxBytes} bytes.`);
const badBody = (message: string) =>
  new AppError("VALIDATION_FAILED", message, { errors: [{ path: "body", message }] });
const missingFile = (fieldName: string) =>
  new AppError("VALIDATION_FAILED", `The multipart part "${fieldName}" with the file is missing.`, {
    errors: [{ path: fieldName, message: "is required" }],
  });

// The part's file name is a string of the request body like any other: no control characters.
const badFilename = (fieldName: string) =>
  new AppError("VALIDATION_FAILED", "The file name must not contain control characters.", {
    errors: [{ path: fieldName, message: "file name must not contain control characters" }],
  });

function isMultipartFormData(contentType: string): boolean {
  return /^multipart\/form-data\s*;/i.test(contentType) && /;\s*boundary=/i.test(contentType);
}

/**
 * Receives the one file of a multipart/form-data request into the blob store. Other parts are
 * read and ignored. The blob is published only after the whole body parsed cleanly, and no temp
 * file survives a failure.
 */
export async function receiveUpload<T>(
  request: Request,
  options: UploadOptions<T>,
): Promise<ReceivedUpload<T>> {
  const fieldName = options.fieldName ?? "file";
  const contentType = request.headers.get("content-type") ?? "";
  if (!isMultipartFormData(contentType)) throw notMultipart();
  const bodyLimit = options.maxBytes + MULTIPART_OVERHEAD;
  // Refuse an honest client before it sends anything.
  if (Number(request.headers.get("content-length")) > bodyLimit) throw tooLarge(options.maxBytes);
  if (!request.body) throw missingFile(fieldName);

  let busboy: BusboyInstance;
  try {
    busboy = new Busboy({
      headers: { "content-type": contentType },
      // By name, not by the default "has a filename" rule: a stray file in another part must
      // neither use up the one-file limit nor be taken for ours.
      isPartAFile: (name) => name === fieldName,
      // fileSize one past the limit so the blob store, which counts too, sees the overflow.
      limits: { files: 1, fileSize: options.maxBytes + 1, fields: 20, parts: 30, fieldSize: 64 * 1024 },
    });
  } catch {
    throw notMultipart();
  }

  const reader = request.body.getReader();
  const stop = new AbortController();
  let failure: { error: unknown } | undefined;
  let rejectFailed: (error: unknown) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    rejectFailed = reject;
  });
  failed.catch(() => {});
  // The first failure wins; it also stops reading the client's body at once.
  const fail = (error: unknown) => {
    if (failure) return;
    failure = { error };
    rejectFailed(error);
    stop.abort();
    reader.cancel().catch(() => {});
  };
  const finished = new Promise<void>((resolve) => busboy.on("finish", () => resolve()));
  const malformed = () => badBody("The multipart body is malformed or ends early.");

  let fileStream: BusboyFileStream | undefined;
  let upload: Promise<WrittenBlob<T>> | undefined;
  let filename: string | null = null;
  busboy.on("error", () => fail(malformed()));
  busboy.on("file", (_name, stream, name) => {
    fileStream = stream;
    // Busboy gives undefined (despite its types) when the part has no filename.
    filename = name || null;
    // A broken body is reported on busboy first (its "error" above), then again here. This stream
    // also errors when the blob store stops reading it (an AbortError after a 413), so it is no
    // place to classify anything; the listener only keeps the event from going unhandled.
    stream.on("error", () => {});
    if (filename !== null && !SINGLE_LINE.test(filename)) {
      fail(badFilename(fieldName));
      return;
    }
    // Busboy says so the moment the part passes the limit, before the parts it then breaks off
    // can be reported as malformed.
    stream.on("limit", () => fail(tooLarge(options.maxBytes)));
    upload = options.blobs.write(stream, {
      maxBytes: options.maxBytes,
      // Converted once the whole body parsed (the same wait as inspect's), then checked.
      convert: options.convert
        ? async (tempPath, size, outputPath) => {
            await Promise.race([finished, failed]);
            return options.convert!(tempPath, size, outputPath);
          }
        : undefined,
      // Waiting for the end of the body means a blob is never published for a request that
      // later turns out broken, too large or interrupted.
      inspect: async (tempPath, size) => {
        await Promise.race([finished, failed]);
        return options.inspect(tempPath, size);
      },
    });
    upload.catch(fail);
  });

  const pump = async () => {
    let received = 0;
    while (!failure) {
      const result = await reader.read().catch(() => {
        throw badBody("The request body could not be read to its end.");
      });
      if (result.done) break;
      received += result.value.byteLength;
      // Without a Content-Length only counting protects us from an endless body.
      if (received > bodyLimit) throw tooLarge(options.maxBytes);
      if (!busboy.write(result.value)) await once(busboy, "drain", { signal: stop.signal });
    }
    if (!failure) busboy.end();
  };

  try {
    const pumped = pump();
    pumped.catch(() => {});
    await Promise.race([pumped, failed]);
    await Promise.race([finished, failed]);
    if (!upload) throw missingFile(fieldName);
    const written: WrittenBlob<T> = await upload;
    return { ...written, filename };
  } catch (error) {
    fail(error);
    const reported = failure?.error ?? error;
    // Stop the blob store's read and wait for it to remove its temp file before answering.
    fileStream?.destroy(new Error("upload stopped"));
    await upload?.catch(() => {});
    throw reported;
  }
}
