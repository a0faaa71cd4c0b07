// The kinds of file the upload routes take and what each kind's check reads from the file.
import { type InspectedApk, inspectApkMetadata } from "./apk-metadata";
import { inspectArchive, inspectPng, type ZipSummary } from "./file-types";

export type UploadKind = "cover" | "archive" | "apk";

/** What each kind's check reads from the file. */
export interface Inspected {
  cover: { width: number; height: number };
  archive: ZipSummary;
  apk: InspectedApk;
}

export const inspectors: { [K in UploadKind]: (path: string, size: number) => Promise<Inspected[K]> } = {
  cover: inspectPng,
  archive: inspectArchive,
  apk: inspectApkMetadata,
};
