// Where uploads meet records: receive a checked file into the blob store, then register the blob
// in the same transaction that points a record at it.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { Deps } from "../lib/deps";
import { type FileToSend, fileResponse } from "../lib/file-response";
import { AppError, notFound } from "../lib/problems";
import { insertBlob, lockBlob } from "../repositories/blobs";
import { type BookVersionRow, updateBookVersion } from "../repositories/book-versions";
import { type BookRow, updateBook } from "../repositories/books";
import { type InspectedApk, inspectApkMetadata } from "../storage/apk-metadata";
import type { BlobStore } from "../storage/blob-store";
import { inspectPng, inspectZip, type ZipDirectory } from "../storage/file-types";
import { type ReceivedUpload, receiveUpload } from "../storage/uploads";

export type UploadKind = "cover" | "archive" | "apk";

interface Inspected {
  cover: { width: number; height: number };
  archive: ZipDirectory;
  apk: InspectedApk;
}

const inspectors: { [K in UploadKind]: (path: string, size: number) => Promise<Inspected[K]> } = {
  cover: (path) => inspectPng(path),
  archive: inspectZip,
  apk: inspectApkMetadata,
};

function limitOf(deps: Deps, kind: UploadKind): number {
  const { config } = deps;
  return kind === "cover"
    ? config.maxCoverBytes
    : kind === "archive"
      ? config.maxArchiveBytes
      : config.maxApkBytes;
}

/** Streams the request's `file` part into the blob store, checked for its kind. */
export function receiveFile<K extends UploadKind>(
  deps: Deps,
  request: Request,
  kind: K,
): Promise<ReceivedUpload<Inspected[K]>> {
  return receiveUpload(request, {
    maxBytes: limitOf(deps, kind),
    blobs: deps.blobs,
    inspect: inspectors[kind],
  });
}

/**
 * Registers a stored blob (identical uploads share one row); call inside the transaction that
 * points the record at it. Under the blob's lock, so the cleanup job cannot remove the file
 * between this check and the commit; if it removed the file since this upload stored it (the
 * same bytes were an unused blob until now), the request fails with a 503 and nothing names
 * the missing file. Sending the file again stores it afresh.
 */
export async function recordBlob(
  db: Database,
  blobs: BlobStore,
  sha256: string,
  size: number,
  now: Date,
): Promise<void> {
  await lockBlob(db, sha256);
  await insertBlob(db, sha256, size, now);
  if (!blobs.existsSync(sha256)) {
    throw new AppError(
      "SERVICE_UNAVAILABLE",
      "The file was removed while it was being stored; send it again.",
      {
        headers: { "Retry-After": "1" },
      },
    );
  }
}

/** Points the book at its new cover (the blob registered in the same transaction); 404 if it is gone. */
export function attachCover(
  db: Database,
  bookId: number,
  file: ReceivedUpload<Inspected["cover"]>,
  now: Date,
  blobs: BlobStore,
): Promise<BookRow> {
  return attachBlob(db, blobs, file, now, `Book ${bookId}`, (tx) =>
    updateBook(
      tx,
      bookId,
      {
        coverSha256: file.sha256,
        coverSize: file.size,
        coverWidth: file.inspected.width,
        coverHeight: file.inspected.height,
        coverUpdatedAt: now,
      },
      now,
    ),
  );
}

/** Points the book version at its new archive (the blob registered in the same transaction); 404 if it is gone. */
export function attachArchive(
  db: Database,
  versionId: number,
  file: ReceivedUpload<Inspected["archive"]>,
  now: Date,
  blobs: BlobStore,
): Promise<BookVersionRow> {
  return attachBlob(db, blobs, file, now, `Book version ${versionId}`, (tx) =>
    updateBookVersion(
      tx,
      versionId,
      {
        archiveSha256: file.sha256,
        archiveSize: file.size,
        archiveFilename: file.filename,
        archiveUploadedAt: now,
      },
      now,
    ),
  );
}

/**
 * Registers the blob and points a record at it in one transaction, so no row ever names a blob
 * the cleanup job could take. `point` answers the updated row, or undefined when it is gone (404).
 */
function attachBlob<Row>(
  db: Database,
  blobs: BlobStore,
  file: { sha256: string; size: number },
  now: Date,
  what: string,
  point: (tx: Database) => Promise<Row | undefined>,
): Promise<Row> {
  return withTransaction(db, async (tx) => {
    await recordBlob(tx, blobs, file.sha256, file.size, now);
    const updated = await point(tx);
    if (!updated) throw notFound(what);
    return updated;
  });
}

/** Answers a stored blob with the download behaviour of API.md §6. */
export function sendBlob(deps: Deps, request: Request, file: Omit<FileToSend, "path">): Response {
  return fileResponse(request, { ...file, path: deps.blobs.pathOf(file.sha256) });
}
