import { AppError } from "./problems";

/** JSON bodies are small (API.md §1); the upload routes bound theirs while they stream. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

export const payloadTooLarge = () =>
  new AppError("PAYLOAD_TOO_LARGE", `The request body is over ${MAX_JSON_BODY_BYTES} bytes.`);

/** The client went away or stalled mid-body: its fault, not an error of ours to log. */
const bodyCutOff = () =>
  new AppError("VALIDATION_FAILED", "The request body could not be read to its end.", {
    errors: [{ path: "body", message: "ended early" }],
  });

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
