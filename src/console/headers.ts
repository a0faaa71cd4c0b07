// The headers every console response carries, whatever answered it (a page, a redirect, a 404,
// a 405 of the app's method check, a 500): README "Console". Applied by the app around everything under
// /console, so no screen can forget them.
import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../http/types";

export const CONSOLE_BASE = "/console";

/** README "Console", exactly: no inline script or style, nothing from another origin. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export const CONSOLE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["Content-Security-Policy", CONSOLE_CSP],
  ["Cache-Control", "no-store"],
  ["Referrer-Policy", "same-origin"],
];

/** `/console` itself or a path below it (not `/consoles`). */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_BASE || path.startsWith(`${CONSOLE_BASE}/`);
}

export function consoleHeaders(): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    if (!isConsolePath(c.req.path)) return next();
    await next();
    for (const [name, value] of CONSOLE_HEADERS) c.res.headers.set(name, value);
  };
}
