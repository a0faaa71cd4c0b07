import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "./types";

/** One structured line per request. The path only: query strings may carry codes or names. */
export function requestLogger(): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const started = performance.now();
    await next();
    c.get("deps").logger.info("request", {
      requestId: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  };
}
