// OpenAPI pieces shared by every file download and upload route.
import { z } from "@hono/zod-openapi";
import { Timestamp } from "./openapi";

export const RangeHeaders = z.object({
  range: z
    .string()
    .optional()
    .openapi({
      param: { name: "range", in: "header" },
      description: "One byte range: `bytes=a-b`, `bytes=a-` or `bytes=-n`",
      example: "bytes=0-1023",
    }),
  "if-none-match": z
    .string()
    .optional()
    .openapi({
      param: { name: "if-none-match", in: "header" },
      description: "A previous ETag: 304 when it still matches",
      example: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
    }),
  "if-range": z
    .string()
    .optional()
    .openapi({
      param: { name: "if-range", in: "header" },
      description: "Honour Range only while this ETag or date still matches",
      example: '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
    }),
});

const downloadHeaders = {
  ETag: { description: "Quoted SHA-256 of the file", schema: { type: "string" as const } },
  "Content-Length": { description: "Bytes in this response", schema: { type: "integer" as const } },
  "Accept-Ranges": { description: "`bytes`", schema: { type: "string" as const } },
  "Last-Modified": { description: "When the file was uploaded", schema: { type: "string" as const } },
  "Content-Disposition": { description: "RFC 6266 filename", schema: { type: "string" as const } },
  "Cache-Control": { description: "How long caches may keep it", schema: { type: "string" as const } },
};

/**
 * 200 (whole file), 206 (a range), 302 (to the bucket, STORAGE=s3) and 304 (not modified) of a download; its route adds the
 * errors NOT_FOUND and RANGE_NOT_SATISFIABLE (`downloadErrors`).
 */
export function downloadResponses(contentType: string, description: string) {
  const body = { [contentType]: { schema: { type: "string" as const, format: "binary" } } };
  return {
    200: { description, headers: downloadHeaders, content: body },
    206: {
      description: "The requested range",
      headers: {
        ...downloadHeaders,
        "Content-Range": { description: "`bytes a-b/size`", schema: { type: "string" as const } },
      },
      content: body,
    },
    302: {
      description:
        "With STORAGE=s3 and S3_DOWNLOADS=redirect (API.md §8): the file is at `Location`, a presigned URL of the bucket that expires after S3_PRESIGN_TTL and answers the same Content-Type and Content-Disposition (and Range). Clients follow it.",
      headers: {
        Location: { description: "The presigned URL", schema: { type: "string" as const, format: "uri" } },
        ETag: downloadHeaders.ETag,
        "Cache-Control": { description: "`private, no-store`", schema: { type: "string" as const } },
      },
    },
    304: {
      description: "Not modified: the If-None-Match ETag still matches",
      headers: {
        ETag: downloadHeaders.ETag,
        "Last-Modified": downloadHeaders["Last-Modified"],
        "Cache-Control": downloadHeaders["Cache-Control"],
      },
    },
  };
}

export const downloadErrors = ["NOT_FOUND", "RANGE_NOT_SATISFIABLE"] as const;

/** An upload's file may be too large or not what the route takes (its record gone: NOT_FOUND). */
export const uploadErrors = ["PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"] as const;

/** Example values of an uploaded file's record. */
interface UploadedFileExample {
  size: number;
  sha256: string;
  filename: string;
}

/**
 * The record of a resource's uploaded file (a version's archive, an APK's file), named `name`,
 * with the fields `more` adds (what the upload's check read from the file).
 */
export function uploadedFileSchema<More extends z.ZodRawShape = Record<never, never>>(
  name: string,
  example: UploadedFileExample,
  more?: More,
) {
  return z
    .object({
      size: z.number().int().openapi({ example: example.size }),
      sha256: z.string().openapi({ example: example.sha256 }),
      filename: z.string().nullable().openapi({ example: example.filename }),
      uploadedAt: Timestamp,
      ...(more as More),
    })
    .openapi(name);
}

/** A row's columns of an uploaded file: `<prefix>Sha256`, `<prefix>Size`, … */
type HashAndName<Prefix extends string> = Record<`${Prefix}Sha256` | `${Prefix}Filename`, string | null>;
type Size<Prefix extends string> = Record<`${Prefix}Size`, number | null>;
type UploadedAt<Prefix extends string> = Record<`${Prefix}UploadedAt`, Date | null>;

/** The file record of a row's `prefix` columns (uploadedFileSchema's shape); null before an upload. */
export function uploadedFileOf<Prefix extends string>(
  row: HashAndName<Prefix> & Size<Prefix> & UploadedAt<Prefix>,
  prefix: Prefix,
) {
  // TypeScript looks a generic key up in one record at a time, so the row is read through each.
  const hashAndName: HashAndName<Prefix> = row;
  const size: Size<Prefix> = row;
  const uploadedAt: UploadedAt<Prefix> = row;
  const sha256 = hashAndName[`${prefix}Sha256`];
  const time = uploadedAt[`${prefix}UploadedAt`];
  if (!sha256 || !time) return null;
  return {
    size: size[`${prefix}Size`] ?? 0,
    sha256,
    filename: hashAndName[`${prefix}Filename`],
    uploadedAt: time.toISOString(),
  };
}
