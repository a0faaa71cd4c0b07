// The download of a file a record keeps in its file columns (a cover, an archive, an APK): the
// record says which blob, when it came and how large it is; sendBlob answers ranges and ETags.
import type { Context } from "hono";
import { notFound } from "../lib/problems";
import { type FileToSend, sendBlob } from "./file-response";
import type { AppBindings } from "./types";

/** The file a row keeps in its file columns: all null until one is uploaded. */
export interface FileColumns {
  sha256: string | null;
  size: number | null;
  uploadedAt: Date | null;
}

/** A download of the file a row keeps; 404 naming `what` while it has none. */
export function sendStoredFile(
  c: Context<AppBindings>,
  what: string,
  file: FileColumns,
  how: Pick<FileToSend, "contentType" | "filename" | "disposition" | "cacheControl" | "delivery">,
): Promise<Response> {
  if (!file.sha256 || !file.uploadedAt) throw notFound(what);
  return sendBlob(c.get("deps"), c.req.raw, {
    ...how,
    sha256: file.sha256,
    size: file.size ?? 0,
    lastModified: file.uploadedAt,
  });
}
