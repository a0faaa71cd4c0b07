// What every request gets around it: an id, the app's dependencies, the security headers, the
// JSON charset and one log line. One middleware rather than five (hono's request-id and
// secure-headers, and three of ours): each layer is one more async frame on every request.
import type { MiddlewareHandler } from "hono";
import type { Deps } from "../deps";
import { PROBLEM_CONTENT_TYPE } from "../lib/problems";
import { recordRequest } from "./access-log";
import { isFromTrustedProxy } from "./client-address";
import { HAL_CONTENT_TYPE } from "./hal";
import { JSON_CONTENT_TYPE } from "./openapi";
import type { OperationNames } from "./operation-names";
import type { AppBindings, AppVariables } from "./types";

export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * An incoming id is echoed when it is this sane (hono/request-id's rule) and a trusted proxy sent
 * it, else one is made: any client could otherwise pick the id that ties log lines together, and
 * give many requests one id or another client's.
 */
const SANE_REQUEST_ID = /^[\w\-=]{1,255}$/;

/**
 * On every response, what OWASP's REST Security Cheat Sheet asks of an API's responses: no
 * sniffing (nosniff on everything), HTTPS only, no framing. CORP is cross-origin because covers,
 * archives and APKs are fetched cross-origin by the apps and by a Swagger UI on another host.
 */
export const SECURITY_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["Cross-Origin-Resource-Policy", "cross-origin"],
  ["Strict-Transport-Security", "max-age=15552000; includeSubDomains"],
  ["X-Content-Type-Options", "nosniff"],
  ["X-Frame-Options", "SAMEORIGIN"],
];

/**
 * The rest of helmet's defaults (as hono/secure-headers sets them, without COOP: no page of ours
 * opens windows) act only where a browser renders a document, so they go on our HTML pages (the
 * Swagger UI) and are not spent on every JSON body and file.
 */
export const DOCUMENT_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["Origin-Agent-Cluster", "?1"],
  ["Referrer-Policy", "no-referrer"],
  ["X-DNS-Prefetch-Control", "off"],
  ["X-Download-Options", "noopen"],
  ["X-Permitted-Cross-Domain-Policies", "none"],
  ["X-XSS-Protection", "0"],
];

/** Hono labels JSON without a charset; every JSON answer says `; charset=UTF-8`. */
const CHARSET_LESS_JSON = new Map(
  [JSON_CONTENT_TYPE, HAL_CONTENT_TYPE, PROBLEM_CONTENT_TYPE].map((type) => [type, `${type}; charset=UTF-8`]),
);

/**
 * Outermost middleware, so its headers, log line and metrics also cover onError, notFound and
 * 405 (access-log.ts).
 */
export function requestFrame(
  deps: Deps,
  runtime: AppVariables["runtime"],
  operations: OperationNames,
): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    // Metrics time every request, whether the log is on or not.
    const started = performance.now();
    c.set("deps", deps);
    const incoming = c.req.header(REQUEST_ID_HEADER);
    const sane = incoming !== undefined && SANE_REQUEST_ID.test(incoming);
    const trusted = sane && isFromTrustedProxy(c);
    c.set("requestId", trusted ? incoming : crypto.randomUUID());
    // Kept for the log line, so a client's own id still finds its request; an insane one is not
    // worth a line of anyone's log.
    if (sane && !trusted) c.set("clientRequestId", incoming);
    c.set("runtime", runtime);
    await next();
    const headers = c.res.headers;
    for (const [name, value] of SECURITY_HEADERS) headers.set(name, value);
    headers.set(REQUEST_ID_HEADER, c.get("requestId"));
    const type = headers.get("content-type");
    const withCharset =
      type === null || c.get("exactContentType") === true ? undefined : CHARSET_LESS_JSON.get(type);
    if (withCharset !== undefined) headers.set("content-type", withCharset);
    else if (type?.startsWith("text/html")) {
      // A page that set its own (the console's Referrer-Policy, README "Console") keeps it.
      for (const [name, value] of DOCUMENT_HEADERS) if (!headers.has(name)) headers.set(name, value);
    }
    // Awaited only when it reads a body: each await is one more turn of the microtask queue.
    const reading = recordRequest(c, operations, started);
    if (reading !== undefined) await reading;
  };
}
