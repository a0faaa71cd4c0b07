// The upload routes' bodies: the multipart `file` part streamed into the blob store, held to the
// route's own limit and checked for what the route takes. Nothing is buffered whole.

import type { Context } from "hono";
import type { Deps } from "../deps";
import { converters, type Inspected, inspectors, type UploadKind } from "../storage/upload-kinds";
import { type ReceivedUpload, receiveUpload } from "../storage/uploads";
import { allowSlowUpload } from "./connection-timeouts";
import type { AppBindings } from "./types";

/** MAX_COVER_BYTES, MAX_ARCHIVE_BYTES, MAX_APK_BYTES: the limit each upload route declares. */
function limitOf(deps: Deps, kind: UploadKind): number {
  const { config } = deps;
  return kind === "cover"
    ? config.maxCoverBytes
    : kind === "archive"
      ? config.maxArchiveBytes
      : config.maxApkBytes;
}

/**
 * Streams the request's `file` part into the blob store, checked for its kind. Called once the
 * route's access check passed: only then may the body take as long as a slow phone needs.
 */
export async function receiveFile<K extends UploadKind>(
  c: Context<AppBindings>,
  kind: K,
  /** The multipart part with the file: "file" unless a form names it otherwise (the console's). */
  fieldName = "file",
): Promise<ReceivedUpload<Inspected[K]>> {
  const deps = c.get("deps");
  const upload = allowSlowUpload(c);
  const received = await receiveUpload(c.req.raw, {
    maxBytes: limitOf(deps, kind),
    blobs: deps.blobs,
    convert: converters[kind],
    inspect: inspectors[kind],
    fieldName,
  });
  upload.received();
  return received;
}
