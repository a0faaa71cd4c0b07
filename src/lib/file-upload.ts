// The upload routes' bodies: the multipart `file` part streamed into the blob store, held to the
// route's own limit and checked for what the route takes. Nothing is buffered whole.
import { type InspectedApk, inspectApkMetadata } from "../storage/apk-metadata";
import { inspectArchive, inspectPng, type ZipSummary } from "../storage/file-types";
import { type ReceivedUpload, receiveUpload } from "../storage/uploads";
import type { Deps } from "./deps";

export type UploadKind = "cover" | "archive" | "apk";

/** What each kind's check reads from the file. */
export interface Inspected {
  cover: { width: number; height: number };
  archive: ZipSummary;
  apk: InspectedApk;
}

const inspectors: { [K in UploadKind]: (path: string, size: number) => Promise<Inspected[K]> } = {
  cover: (path) => inspectPng(path),
  archive: inspectArchive,
  apk: inspectApkMetadata,
};

/** MAX_COVER_BYTES, MAX_ARCHIVE_BYTES, MAX_APK_BYTES: the limit each upload route declares. */
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
