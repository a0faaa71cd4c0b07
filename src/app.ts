import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { getPath } from "hono/utils/url";
import { CONSOLE_BASE, consoleHeaders, consoleRouter, isConsolePath } from "./console";
import type { Deps } from "./deps";
import { handleError } from "./http/error-handler";
import { methodNotAllowed } from "./http/method-not-allowed";
import { mountRouters, type Router } from "./http/mount-routers";
import { OperationNames } from "./http/operation-names";
import { requestFrame } from "./http/request-frame";
import type { AppBindings } from "./http/types";
import { AppError, problemResponse } from "./lib/problems";
import { absoluteUrlOf, requestTargetOf } from "./lib/request-target";
import { routerSections } from "./routes";
import { registerApiDocs } from "./routes/docs";
import { KOSYNC_BASE, kosyncRouter } from "./routes/kosync";
import { createRuntime } from "./services/runtime";

/**
 * `extraSections`: routers mounted after the resource routers, as further sections of the
 * document. Only tests pass them (an operation with a device-token scope before any real one
 * exists, test/helpers/scope-probe.ts); the service itself mounts exactly routes/index.ts's.
 */
export function createApp(deps: Deps, extraSections: readonly (readonly Router[])[] = []) {
  const app = new OpenAPIHono<AppBindings>({ getPath: routingPathOf });
  const runtime = createRuntime(deps);

  // The frame comes first, to be outermost; the operations it names are read from the registry
  // the routers below fill.
  app.use(requestFrame(deps, runtime, new OperationNames(app.openAPIRegistry)));
  // The console's headers go on everything under /console, the 405s below included (README "Console").
  app.use(consoleHeaders());
  if (deps.config.corsOrigins.length > 0) {
    const apiCors = cors({
      // "*" stands alone (config.ts); hono's cors reads "*" only as a string, not in a list.
      origin: deps.config.corsOrigins[0] === "*" ? "*" : deps.config.corsOrigins,
      exposeHeaders: ["X-Total-Count", "Link", "X-Request-Id", "ETag", "Content-Disposition"],
    });
    // CORS is the JSON API's: no other origin may read a console page.
    app.use((c, next) => (isConsolePath(c.req.path) ? next() : apiCors(c, next)));
  }
  app.use(methodNotAllowed(app));

  mountRouters(app, [...routerSections, ...extraSections]);
  // KOReader's own protocol, outside the document (routes/kosync).
  app.route(KOSYNC_BASE, kosyncRouter());
  // The publisher's console, outside the document too (README "Console"): HTML for staff.
  app.route(CONSOLE_BASE, consoleRouter(deps.config));
  registerApiDocs(app);

  app.notFound((c) =>
    problemResponse(c, new AppError("NOT_FOUND", `No resource at ${requestTargetOf(c.req.url).pathname}.`)),
  );
  app.onError(handleError);
  return app;
}

/**
 * Bun gives a request without a Host header (HTTP/1.0, as load balancers probe) a URL of the
 * path alone ("/health"); hono's getPath expects scheme://authority first and would route it
 * nowhere. A fixed stand-in authority lets it route; nothing reads the host (request-target.ts).
 */
function routingPathOf(request: Request): string {
  return request.url.startsWith("/")
    ? getPath({ url: absoluteUrlOf(request.url) } as Request)
    : getPath(request);
}

export type App = ReturnType<typeof createApp>;
