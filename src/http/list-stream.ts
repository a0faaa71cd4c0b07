// A streamed list's body (API.md §1 "lists"): the same bytes JSON.stringify would give for the
// whole array or HAL collection, written chunk by chunk as the rows are read. The text around the
// array (`[`…`]`, or the HAL collection's `{"_embedded":{"<rel>":[`…`]},"_links":…}`) is given
// by the caller; each chunk is its items' JSON joined by commas, which is how JSON.stringify
// writes an array of objects.
import type { RowStream } from "../lib/list-window";

/** What the body's writer tells about a stream that failed after its headers went out. */
export type StreamFailure = (error: unknown) => void;

const encoder = new TextEncoder();

/**
 * Responses whose body is a streamed list: written for as long as the list takes, so the
 * connection keeps the long timeout a download has (connection-timeouts.ts), not the short one
 * of a JSON answer Bun writes at once.
 */
const streamedLists = new WeakSet<Response>();

export function markStreamedList(response: Response): Response {
  streamedLists.add(response);
  return response;
}

export function isStreamedList(response: Response): boolean {
  return streamedLists.has(response);
}

/**
 * The body of a streamed list: `opening`, the items (`toJson` of each row) and `closing`. Each
 * pull reads one chunk, so the database is read only as fast as the client takes the bytes. A
 * client that goes away cancels the body, which ends the stream's snapshot at once; a read that
 * fails errors the body, which aborts the response: the client sees a truncated body, never a
 * well-formed short list.
 */
export function listBody<Row>(
  stream: RowStream<Row>,
  opening: string,
  closing: string,
  toJson: (row: Row) => unknown,
  onFailure: StreamFailure,
): ReadableStream<Uint8Array> {
  const chunks = stream.chunks[Symbol.asyncIterator]();
  let started = false;
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (cancelled) return;
          if (next.done) {
            // The snapshot ends before the last bytes go: a client that has the whole body
            // holds no transaction any more.
            await stream.close();
            controller.enqueue(encoder.encode(started ? closing : opening + closing));
            controller.close();
            return;
          }
          const items = next.value.map((row) => JSON.stringify(toJson(row))).join(",");
          controller.enqueue(encoder.encode(started ? `,${items}` : opening + items));
          started = true;
        } catch (error) {
          await stream.close();
          if (cancelled) return;
          onFailure(error);
          controller.error(error);
        }
      },
      async cancel() {
        cancelled = true;
        await stream.close();
      },
    },
    // Nothing is read ahead of the client's demand: the chunk in hand is all the memory held.
    { highWaterMark: 0 },
  );
}
