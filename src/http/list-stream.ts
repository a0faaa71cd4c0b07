// A streamed list's body (README, What is there: Lists and streams): the same bytes JSON.stringify
// would give for the whole array or HAL collection, written chunk by chunk as the rows are read.
// The text around the array (`[`…`]`, or the HAL collection's
// `{"_embedded":{"<rel>":[`…`]},"_links":…}`) is given by the caller; each chunk is its items' JSON
// joined by commas, which is how JSON.stringify writes an array of objects.
import type { RowStream } from "../lib/list-window";
import { LIST_MIN_READ_BYTES, LIST_READ_WINDOW_MS } from "../lib/stream-limits";
import { responseMark } from "./response-mark";

/** What the body's writer tells about a stream that failed after its headers went out. */
export type StreamFailure = (error: unknown) => void;

const encoder = new TextEncoder();

/**
 * Responses whose body is a streamed list: written for as long as the list takes, so the
 * connection keeps the long timeout a download has (connection-timeouts.ts), not the short one
 * of a JSON answer Bun writes at once.
 */
const streamedLists = responseMark();

export const markStreamedList = streamedLists.mark;
export const isStreamedList = streamedLists.has;

/** How often the slow-reader check looks: the read window is counted in ticks this long. */
const TICK_MS = 1000;
const TICKS_PER_WINDOW = Math.ceil(LIST_READ_WINDOW_MS / TICK_MS);

/**
 * The body of a streamed list: `opening`, the items (`toJson` of each row) and `closing`. Each
 * pull reads one chunk, so the database is read only as fast as the client takes the bytes. A
 * client that goes away cancels the body, which ends the stream's snapshot at once; a read that
 * fails errors the body, which aborts the response: the client sees a truncated body, never a
 * well-formed short list. A client that takes less than LIST_MIN_READ_BYTES in any
 * LIST_READ_WINDOW_MS (lib/stream-limits.ts) is cut the same way, and its snapshot ended at once
 * (`onSlowReader` is told): a socket that stops reading would otherwise hold a snapshot slot, and
 * on Postgres a transaction, until the connection's long timeout.
 */
export function listBody<Row>(
  stream: RowStream<Row>,
  opening: string,
  closing: string,
  toJson: (row: Row) => unknown,
  onFailure: StreamFailure,
  onSlowReader: () => void = () => {},
): ReadableStream<Uint8Array> {
  const chunks = stream.chunks[Symbol.asyncIterator]();
  let started = false;
  let cancelled = false;
  // Bytes handed to the connection per tick, the last window's worth; a pull of ours in progress
  // (the database at work) is not the client's slowness.
  const taken = new Array<number>(TICKS_PER_WINDOW).fill(0);
  let tick = 0;
  let ticks = 0;
  let pulling = false;
  let watchdog: ReturnType<typeof setInterval> | undefined;
  const stopWatching = () => clearInterval(watchdog);
  const send = (controller: ReadableStreamDefaultController<Uint8Array>, text: string) => {
    const bytes = encoder.encode(text);
    taken[tick] = (taken[tick] ?? 0) + bytes.byteLength;
    controller.enqueue(bytes);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        watchdog = setInterval(() => {
          ticks++;
          const inWindow = taken.reduce((sum, bytes) => sum + bytes, 0);
          tick = (tick + 1) % TICKS_PER_WINDOW;
          taken[tick] = 0;
          if (cancelled || pulling || ticks < TICKS_PER_WINDOW || inWindow >= LIST_MIN_READ_BYTES) return;
          cancelled = true;
          stopWatching();
          onSlowReader();
          // The snapshot ends now, not when the connection's timeout would close the socket.
          void stream.close().catch(() => undefined);
          controller.error(new Error("the client read the list too slowly"));
        }, TICK_MS);
        // A stream never keeps the process alive by itself.
        watchdog.unref();
      },
      async pull(controller) {
        pulling = true;
        try {
          const next = await chunks.next();
          if (cancelled) return;
          if (next.done) {
            stopWatching();
            // The snapshot ends before the last bytes go: a client that has the whole body
            // holds no transaction any more.
            await stream.close();
            send(controller, started ? closing : opening + closing);
            controller.close();
            return;
          }
          const items = next.value.map((row) => JSON.stringify(toJson(row))).join(",");
          send(controller, started ? `,${items}` : opening + items);
          started = true;
        } catch (error) {
          stopWatching();
          await stream.close();
          if (cancelled) return;
          onFailure(error);
          controller.error(error);
        } finally {
          pulling = false;
        }
      },
      async cancel() {
        cancelled = true;
        stopWatching();
        await stream.close();
      },
    },
    // Nothing is read ahead of the client's demand: the chunk in hand is all the memory held.
    { highWaterMark: 0 },
  );
}
