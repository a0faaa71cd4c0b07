import type { Context } from "hono";
import { getConnInfo } from "hono/bun";

/** The peer address of the connection (no proxy headers are trusted). "unknown" in-process. */
export function clientAddressOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}
