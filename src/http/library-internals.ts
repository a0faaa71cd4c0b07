// What this app relies on in hono, @hono/zod-openapi and Bun.serve beyond their documented API, all here, so
// that an upgrade that changes one of them fails test/http/library-internals.test.ts by name
// rather than a request somewhere else. Each export is one such reliance.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";

/**
 * Hono's request body cache: `c.req.json()`, `text()` and `arrayBuffer()`, and the validators
 * through them, answer from `c.req.bodyCache` when it holds that form, and the cache holds each
 * form as a promise (its private `#cachedBody`), though BodyCache types the value. A body read
 * here once, bounded, is handed on this way, so the request stays the one Bun made.
 */
export function cacheRequestBody(c: Context, text: string, bytes: Uint8Array): void {
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
  (c.req.bodyCache as { arrayBuffer?: Promise<ArrayBuffer> }).arrayBuffer = Promise.resolve(
    new Uint8Array(bytes).buffer,
  );
}

/**
 * Sets `c.res` to `response` as it is. Hono's `c.res` setter merges a new response into the one
 * it holds by building a third from the new one's body, which would make any body a stream (and
 * drop marks kept by the response's identity, and Content-Length); setting `undefined` first
 * leaves it nothing to merge into.
 */
export function replaceResponse(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}

/** An OpenAPIHono's registry: @asteasolutions/zod-to-openapi's, which @hono/zod-openapi fills. */
export type OpenApiRegistry = OpenAPIHono["openAPIRegistry"];

type Definition = OpenApiRegistry["definitions"][number];

/** An operation as `app.openapi()` registered it: its route config, less middleware and `hide`. */
export type RegisteredRoute = Extract<Definition, { type: "route" }>["route"];

/**
 * The operations a registry holds, in the order they were registered (the OpenAPI document's
 * order): zod-to-openapi keeps each as a `{ type: "route", route }` definition. Other kinds of
 * definition (components, schemas, webhooks) are left out.
 */
export function registeredRoutes(registry: OpenApiRegistry): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  for (const definition of registry.definitions) {
    if (definition.type === "route") routes.push(definition.route);
  }
  return routes;
}

/**
 * The path hono routes an operation under: @hono/zod-openapi turns the document's `{id}` into
 * hono's `:id` when it registers the route (createRoute's getRoutingPath).
 */
export function routingPathOf(documentPath: string): string {
  return documentPath.replaceAll(/\/\{([^{}/]+)\}/g, "/:$1");
}

/**
 * Whether Bun's server is done with `request`: Bun.serve's `requestIP` answers the peer's address
 * while the request's connection serves it, null once its response was sent to the last byte (a
 * file Bun sends by sendfile included) or cut off. Bun has no event for the end of a response
 * whose body it sends itself; this is what tells it (file-delivery.ts).
 */
export function requestEnded(server: { requestIP(request: Request): unknown }, request: Request): boolean {
  return server.requestIP(request) === null;
}
