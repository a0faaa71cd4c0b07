// What every screen's handler uses to answer: a page, a redirect with a flash message, the
// signed-in admin and who their changes are recorded as (README "Audit log": via "console").
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { Principal } from "../../auth/principal";
import { clientAddressOf } from "../../http/client-address";
import type { AppBindings } from "../../http/types";
import { AppError } from "../../lib/problems";
import { type AuditSource, consoleSource } from "../../services/audit";
import type { FlashKey } from "./flash";

export type ConsoleContext = Context<AppBindings>;

/** A rendered page: `<!doctype html>` and the element's markup, with `status`. */
export async function render(c: ConsoleContext, page: Child, status = 200): Promise<Response> {
  const markup = await Promise.resolve(page?.toString() ?? "");
  return c.html(`<!doctype html>${markup}`, status as 200);
}

/** The admin of this console session (set by requireConsoleSession). */
export function adminOf(c: ConsoleContext): Principal {
  return c.get("principal");
}

/** Who a change made from this request is recorded as. */
export function auditSourceOf(c: ConsoleContext): AuditSource {
  return consoleSource(c.get("principal"), c.get("requestId"), clientAddressOf(c));
}

/**
 * 303 See Other to `path` (a console path), with the flash message `flash` shown there: the
 * message is named by a key of kit/flash.ts, never carried as text, so a link cannot make the
 * console say anything. `counts`: the numbers a message of FLASH_COUNTS is followed by.
 */
export function redirectTo(
  c: ConsoleContext,
  path: string,
  flash?: FlashKey,
  counts: Record<string, number> = {},
): Response {
  if (!flash) return c.redirect(path, 303);
  const url = new URL(path, "http://console.invalid");
  url.searchParams.set("done", flash);
  for (const [name, n] of Object.entries(counts)) url.searchParams.set(name, String(n));
  return c.redirect(url.pathname + url.search, 303);
}

/** A path's numeric id (a positive integer up to 2^53 − 1), or a 404 page for anything else. */
export function idParam(c: ConsoleContext, name = "id"): number {
  const text = c.req.param(name) ?? "";
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id)) throw new AppError("NOT_FOUND", "No such page.");
  return id;
}
