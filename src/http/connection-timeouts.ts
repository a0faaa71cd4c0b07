// How long a connection may take (Bun's idle timeout), by phase. In Bun 1.4.5 that timeout is
// in effect a deadline: bytes arriving slower than 16 KiB/s do not push it back (a body
// trickling a byte a second is cut when it runs out), and the value last set for a request
// stays in force after its response, until the next request's headers arrive. So:
// - headers, and a body until its route has checked access and read it: the short timeout,
//   which a stranger trickling bytes cannot stretch;
// - a request without a body (a handler at work, e.g. a 10,000-code sheet), a JSON body once
//   read, an upload once its access check passed: the longest Bun allows, as a slow mobile
//   network needs;
// - the response: a download (a file, a sheet, a CSV) keeps the long timeout for a slow phone;
//   a JSON or text answer, which Bun writes at once, hands the connection back to the short one
//   for the wait for the next request (a streamed whole list is written for as long as a download
//   and keeps the long one);
// - a request answered before its body was read to its end (a 401 or 404 to a POST, a 413):
//   `Connection: close`, so Bun hangs up instead of waiting for the rest of a body nobody reads.
import type { Server } from "bun";
import type { Context, MiddlewareHandler } from "hono";
import { readBoundedBytes } from "./bounded-body";
import { cacheRequestBody } from "./library-internals";
import { isStreamedList } from "./list-stream";
import type { AppBindings } from "./types";

/** Headers, keep-alive, and a body not yet read or authorized. */
export const SHORT_IDLE_SECONDS = 10;
/** Bun's maximum for a request's socket. */
export const LONG_IDLE_SECONDS = 255;

type TimeoutSetter = Pick<Server<undefined>, "timeout">;

/** Requests whose body a route read to its end (JSON) or received whole (an upload). */
const bodiesRead = new WeakSet<Request>();

/** The Bun server a request came in on; absent under `app.request()` in tests. */
function serverOf(env: unknown): TimeoutSetter | undefined {
  return typeof (env as Server<undefined> | undefined)?.timeout === "function"
    ? (env as Server<undefined>)
    : undefined;
}

/** Called as each request arrives: the long timeout only when there is no body to wait for. */
export function timeRequest(server: TimeoutSetter, request: Request): void {
  server.timeout(request, request.body === null ? LONG_IDLE_SECONDS : SHORT_IDLE_SECONDS);
}

/** Answers of these types are small (a page of a list at most): no download to wait for. */
const PROMPT_ANSWER_TYPES = [
  "application/json",
  "application/hal+json",
  "application/problem+json",
  "text/plain",
];

/** Called as each response leaves, with the timeout for what is left of the connection. */
export function timeResponse(server: TimeoutSetter, request: Request, response: Response): Response {
  if (request.body !== null && !bodiesRead.has(request)) {
    // The last response on its connection: Bun honours the header and closes once it is sent.
    response.headers.set("Connection", "close");
  } else {
    const type = response.headers.get("content-type");
    const prompt = type === null || PROMPT_ANSWER_TYPES.some((answer) => type.startsWith(answer));
    if (prompt && !isStreamedList(response)) server.timeout(request, SHORT_IDLE_SECONDS);
  }
  return response;
}

/**
 * An upload whose access check passed: the long timeout while its body arrives. `received`
 * once the whole body was taken in.
 */
export function allowSlowUpload(c: Context<AppBindings>): { received(): void } {
  const request = c.req.raw;
  serverOf(c.env)?.timeout(request, LONG_IDLE_SECONDS);
  return { received: () => bodiesRead.add(request) };
}

/**
 * Reads a non-upload body at once, at most `maxBytes`, within the short timeout, and hands it
 * to the validators through Hono's body cache (`c.req.json()` parses the cached text), so the
 * request stays the one Bun made: its peer address stays readable, and no second Request is
 * built and read again (bench/README.md, "Redemption's budget"). Then the handler gets the long
 * timeout. `emptyAsObject`: a body that may be left out reads as `{}` when it is empty.
 */
export function receivePromptBody(maxBytes: number, emptyAsObject = false): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const server = serverOf(c.env);
    const request = c.req.raw;
    server?.timeout(request, SHORT_IDLE_SECONDS);
    const bytes = await readBoundedBytes(request, maxBytes);
    const text = new TextDecoder().decode(bytes);
    bodiesRead.add(request);
    server?.timeout(request, LONG_IDLE_SECONDS);
    // An empty JSON body that may be left out reads as `{}`; without a Content-Type the
    // validator takes no body as `{}` and does not read the cache.
    const content = emptyAsObject && text.trim() === "" && request.headers.has("content-type") ? "{}" : text;
    // The bytes as received, for a handler that checks a signature over them (receiveShopWebhook).
    cacheRequestBody(c, content, bytes);
    await next();
  };
}
