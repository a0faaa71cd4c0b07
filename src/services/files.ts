// Where uploads meet records: a file already checked into the blob store (http/file-upload.ts) is
// registered in the same transaction that points a record at it.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import { AppError, notFound } from "../lib/problems";
import { insertBlob, lockBlob } from "../repositories/blobs";
import { type BookVersionRow, findBookVersion, updateBookVersion } from "../repositories/book-versions";
import { type BookRow, findBook, updateBook } from "../repositories/books";
import type { BlobStore } from "../storage/blob-store";
import type { Inspected } from "../storage/upload-kinds";
import { archiveFormatFields } from "./archive-format";
import { type AuditSource, recordChange } from "./audit";

/** A stored, checked upload: its blob and what its check read from it. */
export interface StoredFile<I> {
  sha256: string;
  size: number;
  filename: string | null;
  inspected: I;
}

/**
 * Call after `write` stored the blob and before the transaction that records it (the bucket is
 * not asked inside a transaction). If the cleanup job removed the file since this upload stored
 * it (the same bytes were an unused blob until now), the request fails with a 503 and nothing
 * names the missing file; sending the file again stores it afresh. A file that is there now stays
 * until the commit: `write` renewed it, and the cleanup removes nothing younger than its grace.
 */
export async function assertBlobStored(blobs: BlobStore, sha256: string): Promise<void> {
  if (!(await blobs.exists(sha256))) {
    throw new AppError(
      "SERVICE_UNAVAILABLE",
      "The file was removed while it was being stored; send it again.",
      {
        headers: { "Retry-After": "1" },
      },
    );
  }
}

/**
 * Registers a stored blob (identical uploads share one row), checked by `assertBlobStored`; call
 * inside the transaction that points the record at it. Under the blob's lock, so a cleanup run
 * that finds no row for it has released it before, or finds the row after.
 */
export async function recordBlob(db: Database, sha256: string, size: number, now: Date): Promise<void> {
  await lockBlob(db, sha256);
  await insertBlob(db, sha256, size, now);
}

/** Points the book at its new cover (the blob registered in the same transaction); 404 if it is gone. */
export function attachCover(
  db: Database,
  by: AuditSource,
  bookId: number,
  file: StoredFile<Inspected["cover"]>,
  now: Date,
  blobs: BlobStore,
): Promise<BookRow> {
  return attachBlob(db, blobs, file, now, `Book ${bookId}`, async (tx) => {
    const before = await findBook(tx, bookId);
    if (!before) return undefined;
    const book = await updateBook(
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
    );
    await recordChange(tx, by, now, "book", "cover", bookId, before, book!);
    return book;
  });
}

/** Points the book version at its new archive (the blob registered in the same transaction); 404 if it is gone. */
export function attachArchive(
  db: Database,
  by: AuditSource,
  versionId: number,
  file: StoredFile<Inspected["archive"]>,
  now: Date,
  blobs: BlobStore,
): Promise<BookVersionRow> {
  return attachBlob(db, blobs, file, now, `Book version ${versionId}`, async (tx) => {
    const before = await findBookVersion(tx, versionId);
    if (!before) return undefined;
    const version = await updateBookVersion(
      tx,
      versionId,
      {
        archiveSha256: file.sha256,
        archiveSize: file.size,
        archiveFilename: file.filename,
        archiveUploadedAt: now,
        ...archiveFormatFields(file.inspected.recognition),
        archivePartialMd5: file.inspected.partialMd5,
      },
      now,
    );
    await recordChange(tx, by, now, "bookversion", "upload", versionId, before, version!);
    return version;
  });
}

/**
 * Registers the blob and points a record at it in one transaction, so no row ever names a blob
 * the cleanup job could take. `point` answers the updated row, or undefined when it is gone (404).
 */
async function attachBlob<Row>(
  db: Database,
  blobs: BlobStore,
  file: { sha256: string; size: number },
  now: Date,
  what: string,
  point: (tx: Database) => Promise<Row | undefined>,
): Promise<Row> {
  await assertBlobStored(blobs, file.sha256);
  return withTransaction(db, async (tx) => {
    await recordBlob(tx, file.sha256, file.size, now);
    const updated = await point(tx);
    if (!updated) throw notFound(what);
    return updated;
  });
}
