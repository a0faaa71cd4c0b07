// The kinds of file the upload routes take and what each kind's check reads from the file.
import { type InspectedApk, inspectApkMetadata } from "./apk-metadata";
import type { WriteOptions } from "./blob-store";
import { convertCoverToPng } from "./cover-image";
import { type ArchiveRecognition, recogniseArchive } from "./epub";
import { inspectArchive, inspectPng, readAtPath, type ZipSummary } from "./file-types";
import { partialMd5 } from "./partial-md5";

export type UploadKind = "cover" | "archive" | "apk";

/** What each kind's check reads from the file. */
export interface Inspected {
  cover: { width: number; height: number };
  /** `partialMd5`: KOReader's document id of the bytes stored (README "Reading progress"). */
  archive: ZipSummary & { recognition: ArchiveRecognition; partialMd5: string };
  apk: InspectedApk;
}

export const inspectors: { [K in UploadKind]: (path: string, size: number) => Promise<Inspected[K]> } = {
  cover: inspectPng,
  archive: inspectArchiveAndFormat,
  apk: inspectApkMetadata,
};

/**
 * A book version's archive: a sound zip (inspectArchive), then whether it is an EPUB (epub.ts),
 * and KOReader's partial MD5 of exactly these bytes (what is stored and served).
 */
async function inspectArchiveAndFormat(path: string, size: number): Promise<Inspected["archive"]> {
  const summary = await inspectArchive(path, size);
  const readAt = readAtPath(path);
  return {
    ...summary,
    recognition: await recogniseArchive(readAt, size),
    partialMd5: await partialMd5(readAt, size),
  };
}

/** The kinds whose file is converted before it is checked: a JPEG or WebP cover becomes a PNG. */
export const converters: { [K in UploadKind]?: WriteOptions<Inspected[K]>["convert"] } = {
  cover: convertCoverToPng,
};
