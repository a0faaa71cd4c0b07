// Where uploads meet records: receive a checked file into the blob store, then register the blob
// in the same transaction that points a record at it.
import type { Database } from "#db";
import type { Deps } from "../lib/deps";
import { type FileToSend, fileResponse } from "../lib/file-response";
import { type InspectedApk, inspectApkMetadata } from "../storage/apk-metadata";
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

/** Registers a stored blob (identical uploads share one row); call inside the record's transaction. */
export async function recordBlob(db: Database, sha256: string, size: number, now: Date): Promise<void> {
  await db.orm.insert(db.tables.blob).values({ sha256, size, createdAt: now }).onConflictDoNothing();
}

/** Answers a stored blob with the download behaviour of API.md §6. */
export function sendBlob(deps: Deps, request: Request, file: Omit<FileToSend, "path">): Response {
  return fileResponse(request, { ...file, path: deps.blobs.pathOf(file.sha256) });
}
