import type { AppRouteHandler } from "../../lib/types";
import type * as routes from "./service.routes";

/** A probe that does not answer in time counts as down: health checks must not hang. */
const PROBE_TIMEOUT_MS = 2000;

async function probe(check: () => Promise<void>): Promise<"ok" | "unavailable"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return "ok";
  } catch {
    return "unavailable";
  } finally {
    clearTimeout(timer);
  }
}

export const health: AppRouteHandler<typeof routes.health> = async (c) => {
  const deps = c.get("deps");
  const [database, store] = await Promise.all([
    probe(() => deps.pingDatabase()),
    probe(() => deps.store.ping()),
  ]);
  const ok = database === "ok" && store === "ok";
  c.header("Cache-Control", "no-store");
  if (!ok) c.header("Retry-After", "5");
  return c.json({ status: ok ? ("ok" as const) : ("unavailable" as const), database, store }, ok ? 200 : 503);
};
