// A response body that reports when its last byte was handed to the server, and how many bytes
// went: the access log's `bytes` and `durationMs` of a download or a streamed list are those of
// the transfer, not of the headers. Applied in one place (the request frame) to every body.

/** Told once: the bytes sent and whether the body ended (false: the client went away, or it failed). */
export type BodyEnd = (bytes: number, complete: boolean) => void;

/**
 * `response` with a body that counts what passes through it; `onEnd` runs at once for a response
 * without a body (HEAD, 204, 304). Chunks are passed on as they are read, one at a time
 * (highWaterMark 0), so nothing is buffered beyond what the source stream itself holds.
 */
export function measureBody(response: Response, onEnd: BodyEnd): Response {
  const source = response.body;
  if (source === null) {
    onEnd(0, true);
    return response;
  }
  const reader = source.getReader();
  let bytes = 0;
  let ended = false;
  const end = (complete: boolean) => {
    if (ended) return;
    ended = true;
    onEnd(bytes, complete);
  };
  const measured = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            end(true);
            return;
          }
          bytes += value.byteLength;
          controller.enqueue(value);
        } catch (error) {
          end(false);
          controller.error(error);
        }
      },
      cancel(reason) {
        end(false);
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(measured, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
