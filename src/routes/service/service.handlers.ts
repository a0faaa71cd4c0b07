import packageJson from "../../../package.json" with { type: "json" };
import type { AppRouteHandler } from "../../http/types";
import type * as routes from "./service.routes";

/**
 * A probe that does not answer in time counts as down: /health answers within a second
 * whatever the database or the volume is doing (API.md), and balancers time out their checks.
 */
const PROBE_TIMEOUT_MS = 800;

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

export const getHealth: AppRouteHandler<typeof routes.getHealth> = async (c) => {
  const deps = c.get("deps");
  const [database, store, storage] = await Promise.all([
    probe(() => deps.pingDatabase()),
    probe(() => deps.store.ping()),
    probe(() => deps.blobs.probeStorage()),
  ]);
  const ok = database === "ok" && store === "ok" && storage === "ok";
  c.header("Cache-Control", "no-store");
  if (!ok) c.header("Retry-After", "5");
  const status = ok ? ("ok" as const) : ("unavailable" as const);
  return c.json({ status, version: packageJson.version, database, store, storage }, ok ? 200 : 503);
};
