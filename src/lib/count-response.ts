import type { Context } from "hono";

/** `…/count` answers the bare decimal number as text (API.md §1). */
export function countText(c: Context, n: number): Response {
  return c.text(String(n), 200, { "Content-Type": "text/plain;charset=UTF-8" });
}
