import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import type { Deps } from "./lib/deps";
import { MAX_JSON_BODY_BYTES, payloadTooLarge } from "./lib/empty-body";
import { handleError } from "./lib/error-handler";
import { AppError, problemResponse } from "./lib/problems";
import { requestFrame } from "./lib/request-frame";
import type { AppBindings } from "./lib/types";
import { routers } from "./routes";
import { registerApiDocs } from "./routes/docs";
import { createServices } from "./services/container";

/**
 * The upload routes (POST /book/{id}/cover, /bookversion/{id}/upload, /apk/{id}/upload) bound
 * their bodies themselves while they stream; every other body is held to MAX_JSON_BODY_BYTES.
 * Matched on the path the router sees, not on Content-Type, which the client chooses.
 */
const UPLOAD_PATH = /^\/(?:book\/[^/]+\/cover|(?:bookversion|apk)\/[^/]+\/upload)$/;

export function createApp(deps: Deps) {
  const app = new OpenAPIHono<AppBindings>();
  const services = createServices(deps);

  app.use(requestFrame(deps, services));
  if (deps.config.corsOrigins.length > 0) {
    app.use(
      cors({
        // "*" stands alone (config.ts); hono's cors reads "*" only as a string, not in a list.
        origin: deps.config.corsOrigins[0] === "*" ? "*" : deps.config.corsOrigins,
        exposeHeaders: ["X-Total-Count", "Link", "X-Request-Id", "ETag", "Content-Disposition"],
      }),
    );
  }
  app.use(methodNotAllowed(app));
  app.use(async (c, next) => {
    const method = c.req.method;
    // No handler reads the body of a GET or HEAD; the uploads bound their own while they stream.
    if (method === "GET" || method === "HEAD" || (method === "POST" && UPLOAD_PATH.test(c.req.path)))
      return next();
    return jsonBodyLimit(c, next);
  });

  for (const router of routers) app.route("/", router);
  registerApiDocs(app);

  app.notFound((c) =>
    problemResponse(c, new AppError("NOT_FOUND", `No resource at ${new URL(c.req.url).pathname}.`)),
  );
  app.onError(handleError);
  return app;
}

const jsonBodyLimit = bodyLimit({
  maxSize: MAX_JSON_BODY_BYTES,
  onError: () => {
    throw payloadTooLarge();
  },
});

/** A route pattern split at "/": a literal segment, or null for a parameter. */
interface RouteShape {
  segments: (string | null)[];
  methods: string[];
}

/**
 * 405 with Allow, decided before routing on the most specific pattern the path matches: a literal
 * segment wins over a parameter in the same place (API.md §1), so POST /book/count answers
 * Allow: GET, HEAD rather than the methods of /book/{id}, and PUT /book/count is a 405 rather
 * than a 400 for the id "count". hono/method-not-allowed merges every matching pattern instead.
 */
function methodNotAllowed(app: OpenAPIHono<AppBindings>): MiddlewareHandler<AppBindings> {
  let shapesBySize = new Map<number, RouteShape[]>();
  let builtFor = -1;
  const build = () => {
    const methodsByPath = new Map<string, Set<string>>();
    for (const route of app.routes) {
      if (route.method === "ALL" || route.method === "HEAD" || route.path.includes("*")) continue;
      const methods = methodsByPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      if (route.method === "GET") methods.add("HEAD");
      methodsByPath.set(route.path, methods);
    }
    shapesBySize = new Map();
    for (const [path, methods] of methodsByPath) {
      const segments = path
        .split("/")
        .slice(1)
        .map((segment) => (segment.startsWith(":") ? null : segment));
      const shapes = shapesBySize.get(segments.length) ?? [];
      shapes.push({ segments, methods: [...methods] });
      shapesBySize.set(segments.length, shapes);
    }
    // Routes can still be added after createApp (tests do): rebuild when the table grows.
    builtFor = app.routes.length;
  };
  return async (c, next) => {
    if (app.routes.length !== builtFor) build();
    const parts = c.req.path.split("/").slice(1);
    let best: RouteShape | undefined;
    for (const shape of shapesBySize.get(parts.length) ?? []) {
      if (matches(shape, parts) && (!best || moreSpecific(shape, best))) best = shape;
    }
    if (!best || best.methods.includes(c.req.method)) return next();
    return methodNotAllowedResponse(c, best.methods);
  };
}

function matches(shape: RouteShape, parts: string[]): boolean {
  return shape.segments.every((segment, i) => (segment === null ? parts[i] !== "" : segment === parts[i]));
}

/** Whether `a` has a literal where `b` has a parameter, at the first place where they differ. */
function moreSpecific(a: RouteShape, b: RouteShape): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const aLiteral = a.segments[i] !== null;
    if (aLiteral !== (b.segments[i] !== null)) return aLiteral;
  }
  return false;
}

function methodNotAllowedResponse(c: Parameters<typeof problemResponse>[0], methods: string[]): Response {
  const allow = methods.join(", ");
  return problemResponse(
    c,
    new AppError("METHOD_NOT_ALLOWED", `${c.req.method} is not supported here; use ${allow}.`, {
      headers: { Allow: allow },
    }),
  );
}

export type App = ReturnType<typeof createApp>;
