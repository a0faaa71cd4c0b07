import { AppError } from "../lib/problems";

/** JSON bodies are small (1 MiB at most); the upload routes bound theirs while they stream. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * The whole of a JSON body must arrive within this, however it trickles: Bun's idle timeout
 * bounds a slow body today (connection-timeouts.ts), this bounds it whatever Bun does. 1 MiB at
 * a slow phone's 64 KiB/s takes 16 s.
 */
const JSON_BODY_DEADLINE_MS = 30_000;

const payloadTooLarge = () =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body is over ${MAX_JSON_BODY_BYTES} bytes.`);

/** The client went away or stalled mid-body: its fault, not an error of ours to log. */
const bodyCutOff = () =>
  new AppError("VALIDATION_FAILED", "The request body could not be read to its end.", {
    errors: [{ path: "body", message: "ended early" }],
  });

/** The body as text, at most `maxBytes`, read to its end within `deadlineMs`. */
export async function readBounded(
  request: Request,
  maxBytes: number,
  deadlineMs = JSON_BODY_DEADLINE_MS,
): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(request, maxBytes, deadlineMs));
}

/** The body's bytes exactly as received (a signature covers these), bounded like readBounded. */
export async function readBoundedBytes(
  request: Request,
  maxBytes: number,
  deadlineMs = JSON_BODY_DEADLINE_MS,
): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array();
  if (Number(request.headers.get("content-length")) > maxBytes) throw payloadTooLarge();
  const reader = request.body.getReader();
  let late = false;
  // Cancelling ends the pending read as if the body were complete: `late` tells it apart.
  const deadline = setTimeout(() => {
    late = true;
    reader.cancel().catch(() => {});
  }, deadlineMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(() => {
        throw bodyCutOff();
      });
      if (late) throw bodyCutOff();
      if (done) break;
      size += value.length;
      if (size > maxBytes) {
        await reader.cancel();
        throw payloadTooLarge();
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(deadline);
  }
  return Buffer.concat(chunks);
}
