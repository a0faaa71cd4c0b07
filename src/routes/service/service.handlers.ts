import packageJson from "../../../package.json" with { type: "json" };
import type { AppRouteHandler } from "../../http/types";
import type * as routes from "./service.routes";

export const getHealth: AppRouteHandler<typeof routes.getHealth> = async (c) => {
  // At most one run of the deep checks per interval, whoever asks (services/health-checks.ts).
  const { database, store, storage } = await c.get("runtime").health.current();
  const ok = database === "ok" && store === "ok" && storage === "ok";
  c.header("Cache-Control", "no-store");
  if (!ok) c.header("Retry-After", "5");
  const status = ok ? ("ok" as const) : ("unavailable" as const);
  return c.json({ status, version: packageJson.version, database, store, storage }, ok ? 200 : 503);
};
