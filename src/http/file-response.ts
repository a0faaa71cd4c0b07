// The one way a file leaves the service: validators, conditional requests and a
// single byte range, with the body streamed from disk by Bun (sendfile) or from the bucket, never
// read into memory, or a redirect to the bucket (STORAGE=s3, S3_DOWNLOADS=redirect).

import type { Deps } from "../deps";
import { AppError } from "../lib/problems";
import { trimChars } from "../lib/trim";
import type { BlobRange, Delivery } from "../storage/blob-store";
import { parseByteRange } from "./byte-range";
import { responseMark } from "./response-mark";

/**
 * Responses whose body is a local file that Bun sends itself (sendfile): the access log waits for
 * its end (file-delivery.ts) instead of logging it as it starts.
 */
const sentFiles = responseMark();

export const isSentFile = sentFiles.has;

export interface FileToSend {
  sha256: string;
  size: number;
  lastModified: Date;
  contentType: string;
  filename?: string;
  disposition?: "attachment" | "inline";
  cacheControl: string;
  /** "app": streamed by the app even where downloads redirect to the bucket (BlobStore.source). */
  delivery?: Delivery;
}

const MAX_FILENAME_LENGTH = 200;

/**
 * A filename that is safe in a header and on the user's disk: no path separators, control or
 * bidi-formatting characters (which can disguise an extension), or quotes; whitespace collapsed;
 * at most 200 characters, keeping a short extension when it has to be cut.
 */
export function safeFilename(name: string): string {
  const collapsed = name
    .normalize("NFC")
    .replace(/\s+/gu, " ")
    .replace(/[/\\"\p{Cc}\p{Cf}]/gu, "")
    .replace(/ {2,}/g, " ");
  // Leading dots would hide the file; trailing ones and spaces are dropped by Windows.
  const cleaned = trimChars(collapsed, " .");
  const chars = Array.from(cleaned);
  if (chars.length === 0) return "download";
  if (chars.length <= MAX_FILENAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf(".");
  const extension = dot > 0 && cleaned.length - dot <= 16 ? Array.from(cleaned.slice(dot)) : [];
  const stem = chars
    .slice(0, MAX_FILENAME_LENGTH - extension.length)
    .join("")
    .trimEnd();
  return stem + extension.join("");
}

/** RFC 5987 value-chars: encodeURIComponent still lets through a few characters that are not allowed. */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * RFC 6266: an ASCII `filename` for old clients, and `filename*` with the exact UTF-8 name,
 * which every current browser prefers.
 */
export function contentDisposition(kind: "attachment" | "inline", filename: string): string {
  const safe = safeFilename(filename);
  const ascii = safe
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    // Some clients percent-decode the plain parameter, so % goes too.
    .replace(/[^\x20-\x7e]|%/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeExtValue(safe)}`;
}

/** HTTP dates have whole seconds, so compare at that precision. */
function seconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

function parseHttpDate(value: string): number | null {
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : Math.floor(time / 1000);
}

/** Weak comparison (RFC 9110 §8.8.3.2), as If-None-Match requires. */
function noneMatch(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/**
 * If-Range needs a strong match, or a date exactly equal to Last-Modified. Compared, not parsed
 * (a trim, an equality, Date.parse): linear in the header's length like the Range scanner.
 */
function rangeStillValid(header: string | null, etag: string, lastModified: Date): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith("W/")) return value === etag;
  const date = parseHttpDate(value);
  return date !== null && date === seconds(lastModified);
}

/** The part of a download decided before any byte is read: a 304, or status, headers and range. */
type FilePlan =
  | { notModified: Response }
  | { status: 200 | 206; headers: Headers; range: BlobRange | null; withBody: boolean };

function validators(file: FileToSend): Headers {
  return new Headers({
    ETag: `"${file.sha256}"`,
    "Last-Modified": file.lastModified.toUTCString(),
    "Cache-Control": file.cacheControl,
    "X-Content-Type-Options": "nosniff",
  });
}

/** RFC 9110 §13.2.2: If-None-Match first; If-Modified-Since only without it. */
function isNotModified(request: Request, file: FileToSend): boolean {
  const ifNoneMatch = request.headers.get("if-none-match");
  const ifModifiedSince = request.headers.get("if-modified-since");
  return ifNoneMatch !== null
    ? noneMatch(ifNoneMatch, `"${file.sha256}"`)
    : ifModifiedSince !== null && seconds(file.lastModified) <= (parseHttpDate(ifModifiedSince) ?? -1);
}

function dispositionOf(file: FileToSend): string | undefined {
  return file.filename === undefined
    ? undefined
    : contentDisposition(file.disposition ?? "attachment", file.filename);
}

/**
 * Decides a GET or HEAD for a file. A range outside the file throws RANGE_NOT_SATISFIABLE (416)
 * with `Content-Range: bytes *\/size`, for the error mapper to render.
 */
function planFileResponse(request: Request, file: FileToSend): FilePlan {
  const etag = `"${file.sha256}"`;
  const headers = validators(file);
  if (isNotModified(request, file)) return { notModified: new Response(null, { status: 304, headers }) };

  headers.set("Accept-Ranges", "bytes");
  headers.set("Content-Type", file.contentType);
  const disposition = dispositionOf(file);
  if (disposition !== undefined) headers.set("Content-Disposition", disposition);
  // HEAD answers exactly what GET would, without the body (RFC 9110 §9.3.2).
  const withBody = request.method !== "HEAD";

  const rangeHeader = request.headers.get("range");
  const range =
    rangeHeader !== null && rangeStillValid(request.headers.get("if-range"), etag, file.lastModified)
      ? parseByteRange(rangeHeader, file.size)
      : null;
  if (range === "unsatisfiable") {
    throw new AppError(
      "RANGE_NOT_SATISFIABLE",
      `The requested range is outside the file of ${file.size} bytes.`,
      {
        headers: { "Content-Range": `bytes */${file.size}` },
      },
    );
  }
  if (range) {
    headers.set("Content-Range", `bytes ${range.start}-${range.end}/${file.size}`);
    headers.set("Content-Length", String(range.end - range.start + 1));
    return { status: 206, headers, range, withBody };
  }
  headers.set("Content-Length", String(file.size));
  return { status: 200, headers, range: null, withBody };
}

/**
 * Answers a stored blob as every download is answered (see the top of this file), wherever the blob
 * store keeps it: the access check has been made; validators and 304 are the app's; the bytes come
 * from the store, or with S3_DOWNLOADS=redirect from the bucket itself through a presigned URL that
 * answers the same Content-Type and Content-Disposition (Range is then the bucket's).
 */
export async function sendBlob(
  deps: Pick<Deps, "blobs">,
  request: Request,
  file: FileToSend,
): Promise<Response> {
  const source = deps.blobs.source(file.sha256, file.delivery);
  if (source.kind === "redirect") {
    const headers = validators(file);
    if (isNotModified(request, file)) return new Response(null, { status: 304, headers });
    const { url } = source.presign({
      contentType: file.contentType,
      contentDisposition: dispositionOf(file),
    });
    headers.set("Location", url);
    // The URL is a credential for a few minutes: no cache may keep or share it.
    headers.set("Cache-Control", "private, no-store");
    return new Response(null, { status: 302, headers });
  }
  const plan = planFileResponse(request, file);
  if ("notModified" in plan) return plan.notModified;
  const body = plan.withBody ? await source.read(plan.range) : null;
  const response = new Response(body, { status: plan.status, headers: plan.headers });
  return body instanceof Blob ? sentFiles.mark(response) : response;
}
