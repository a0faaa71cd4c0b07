// Where the sign-in page sends a staff member afterwards (README "Console": `next` only ever a /console/
// path). Anything that could leave the console — another host (`//evil`, `/\evil`), a scheme, a
// dot segment that climbs out (`/console/../x`), or the same in percent-encoded form — is
// replaced by the dashboard, not repaired.
import { CONSOLE_BASE } from "./headers";

/** Path characters and a query, nothing else: no backslash, no control character, no space. */
const SAFE = /^\/console(?:[/?][A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*)?$/;

export function safeNext(next: string | undefined | null): string {
  if (!next || next.length > 2000 || !SAFE.test(next)) return CONSOLE_BASE;
  const [path = ""] = next.split("?", 1);
  // Percent-encoded slashes, backslashes and dots are refused outright: a proxy or a browser may
  // decode them into segments this check never saw.
  if (/%(?:2f|5c|2e|00)/i.test(next) || path.includes("//")) return CONSOLE_BASE;
  if (path.split("/").some((segment) => segment === "." || segment === "..")) return CONSOLE_BASE;
  const resolved = new URL(next, "http://console.invalid");
  if (resolved.host !== "console.invalid") return CONSOLE_BASE;
  if (resolved.pathname !== CONSOLE_BASE && !resolved.pathname.startsWith(`${CONSOLE_BASE}/`)) {
    return CONSOLE_BASE;
  }
  return next;
}

/** The login page that comes back to `target` (a path and query of the console). */
export function loginUrlFor(target: string): string {
  return `${CONSOLE_BASE}/login?next=${encodeURIComponent(safeNext(target))}`;
}
