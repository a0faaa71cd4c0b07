// The console's session cookie and the gate in front of every screen (README "Console"). The cookie is
// the only credential the console reads: an Authorization header (Bearer, Basic) is ignored, and
// the JSON API never reads cookies at all.
import type { Context, MiddlewareHandler } from "hono";
import type { AppBindings } from "../http/types";
import { consolePrincipal } from "../services/console-sessions";
import { loginUrlFor } from "./next-path";

/** `__Host-`: the browser takes it only with Secure, Path=/ and no Domain, so no subdomain can set it. */
export const CONSOLE_COOKIE = "__Host-bookdist-console";

/** A session cookie (no Max-Age, no Expires): it also ends when the browser does. */
export function sessionCookie(value: string): string {
  return `${CONSOLE_COOKIE}=${value}; Path=/; Secure; HttpOnly; SameSite=Strict`;
}

export function clearedCookie(): string {
  return `${CONSOLE_COOKIE}=; Path=/; Secure; HttpOnly; SameSite=Strict; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

/** The cookie's value, or undefined; the first of several (a browser sends one). */
export function consoleCookieOf(c: Context<AppBindings>): string | undefined {
  const header = c.req.header("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === CONSOLE_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Sets `principal` from a live console session, or answers 303 to the sign-in page with this
 * page as `next` (a GET's own path and query; after a POST, the page the form was on is unknown,
 * so its path).
 */
export function requireConsoleSession(): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const cookie = consoleCookieOf(c);
    const principal =
      cookie === undefined
        ? null
        : await consolePrincipal(c.get("deps"), c.get("runtime"), cookie, c.get("deps").clock.now());
    if (!principal) {
      const url = new URL(c.req.url, "http://console.invalid");
      const target =
        c.req.method === "GET" || c.req.method === "HEAD" ? url.pathname + url.search : url.pathname;
      return c.redirect(loginUrlFor(target), 303);
    }
    c.set("principal", principal);
    return next();
  };
}
