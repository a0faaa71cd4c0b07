// How long a connection may go without a byte moving (Bun's idle timeout), by phase. Waiting for
// headers and between keep-alive requests: Bun's short default. Receiving a JSON body: short too,
// so a stalled client cannot hold a connection (and a stopping instance) for minutes. Everything
// else — a handler at work, a download to a slow phone, an upload (whose route reads its own
// body) — gets the longest Bun allows, as a slow mobile network needs.
import type { Server } from "bun";
import type { MiddlewareHandler } from "hono";
import { readBounded } from "./bounded-body";
import { keepPeerAddress } from "./client-address";
import { absoluteUrlOf } from "./request-target";
import type { AppBindings } from "./types";

/** Headers, keep-alive, and a JSON body that stops arriving. */
export const SHORT_IDLE_SECONDS = 10;
/** Bun's maximum for a request's socket. */
export const LONG_IDLE_SECONDS = 255;

/** The Bun server a request came in on; absent under `app.request()` in tests. */
function serverOf(env: unknown): Pick<Server<undefined>, "timeout"> | undefined {
  return typeof (env as Server<undefined> | undefined)?.timeout === "function"
    ? (env as Server<undefined>)
    : undefined;
}

/** Called as each request arrives (the server's own idle timeout covered its headers). */
export function allowSlowTransfer(server: Pick<Server<undefined>, "timeout">, request: Request): void {
  server.timeout(request, LONG_IDLE_SECONDS);
}

/**
 * Reads a non-upload body at once, at most `maxBytes`, with the short idle timeout, and hands
 * the validators a request holding it (as hono/body-limit does); then the handler gets the long
 * timeout again. `emptyAsObject`: a body that may be left out reads as `{}` when it is empty.
 */
export function receivePromptBody(maxBytes: number, emptyAsObject = false): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const server = serverOf(c.env);
    const request = c.req.raw;
    server?.timeout(request, SHORT_IDLE_SECONDS);
    const text = await readBounded(request, maxBytes);
    server?.timeout(request, LONG_IDLE_SECONDS);
    // An empty JSON body that may be left out reads as `{}`; without a Content-Type the library
    // already takes no body as `{}`. Bytes, not a string: a string body would give a request
    // without a type a text/plain one.
    const content = emptyAsObject && text.trim() === "" && request.headers.has("content-type") ? "{}" : text;
    keepPeerAddress(c);
    c.req.raw = new Request(absoluteUrlOf(request.url), {
      method: request.method,
      headers: request.headers,
      body: content === "" ? null : new TextEncoder().encode(content),
      signal: request.signal,
    });
    await next();
  };
}
