// The kinds of file the upload routes take and what each kind's check reads from the file.
import { type InspectedApk, inspectApkMetadata } from "./apk-metadata";
import type { WriteOptions } from "./blob-store";
import { convertCoverToPng } from "./cover-image";
import { type ArchiveRecognition, recogniseArchive } from "./epub";
import { inspectArchive, inspectPng, readAtPath, type ZipSummary } from "./file-types";

export type UploadKind = "cover" | "archive" | "apk";

/** What each kind's check reads from the file. */
export interface Inspected {
  cover: { width: number; height: number };
  archive: ZipSummary & { recognition: ArchiveRecognition };
  apk: InspectedApk;
}

export const inspectors: { [K in UploadKind]: (path: string, size: number) => Promise<Inspected[K]> } = {
  cover: inspectPng,
  archive: inspectArchiveAndFormat,
  apk: inspectApkMetadata,
};

/** A book version's archive: a sound zip (inspectArchive), then whether it is an EPUB (epub.ts). */
async function inspectArchiveAndFormat(path: string, size: number): Promise<Inspected["archive"]> {
  const summary = await inspectArchive(path, size);
  return { ...summary, recognition: await recogniseArchive(readAtPath(path), size) };
}

/** The kinds whose file is converted before it is checked: a JPEG or WebP cover becomes a PNG. */
export const converters: { [K in UploadKind]?: WriteOptions<Inspected[K]>["convert"] } = {
  cover: convertCoverToPng,
};
