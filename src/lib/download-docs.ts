// OpenAPI pieces shared by every file download and upload route.
import { z } from "@hono/zod-openapi";

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
 * 200 (whole file), 206 (a range) and 304 (not modified) of a download; its route adds the
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

/** An upload's record may be gone; its file may be too large or not what the route takes. */
export const uploadErrors = ["NOT_FOUND", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"] as const;
