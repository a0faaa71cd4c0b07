import type { MiddlewareHandler } from "hono";
import { AppError } from "./problems";
import type { AppBindings } from "./types";

/** JSON bodies are small (API.md §1); the upload routes bound theirs while they stream. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

export const payloadTooLarge = () =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body is over ${MAX_JSON_BODY_BYTES} bytes.`);

/** The client went away or stalled mid-body: its fault, not an error of ours to log. */
const bodyCutOff = () =>
  new AppError("VALIDATION_FAILED", "The request body could not be read to its end.", {
    errors: [{ path: "body", message: "ended early" }],
  });

/**
 * For bodies that may be left out: an empty JSON body reads as `{}` instead of failing to parse.
 * The body was read, bounded, by app.ts (connection-timeouts.ts) before any route's middleware.
 */
export const emptyBodyAsObject: MiddlewareHandler<AppBindings> = async (c, next) => {
  const text = await c.req.text();
  // Hono keeps the body promise here (its type says string); the JSON validator reads it back.
  (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text.trim() === "" ? "{}" : text);
  await next();
};

export async function readBounded(request: Request, maxBytes: number): Promise<string> {
  if (!request.body) return "";
  if (Number(request.headers.get("content-length")) > maxBytes) throw payloadTooLarge();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw bodyCutOff();
    });
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
