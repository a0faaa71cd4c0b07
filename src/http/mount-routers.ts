// Where the resource routers' operations go: into hono's routing table, where hono tries
// handlers in the order they were added, so the most specific pattern must come first; and into
// the OpenAPI document, whose order is its own. Both orders are decided here, by one rule each,
// so neither depends on the order in which routes/index.ts lists the routers or a routes module
// its exports.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { RouterRoute } from "hono/types";
import { bySpecificity } from "./create-router";
import { type RegisteredRoute, registeredRoutes } from "./library-internals";
import type { AppBindings } from "./types";

export type Router = OpenAPIHono<AppBindings>;

/**
 * Mounts every router of `sections` at the root of `app`. Routing: every route of every router,
 * a fixed segment before a parameter in the same place (`/book/my-books` before `/book/{id}`),
 * whatever the order of the routers. The document: section after section, each router's
 * operations in the order it registered them (createResourceRouter's); a section of several
 * routers merges their lists. Routers are createRouter's, which keep no error handler of their
 * own, so their handlers run as hono's `app.route()` would run them.
 */
export function mountRouters(app: Router, sections: readonly (readonly Router[])[]): void {
  const routes = sections.flat().flatMap((router) => router.routes);
  // A stable sort: a route's access check, validators and handler (one entry each, one path)
  // keep their order, and so do routes of the same pattern under different methods.
  for (const { method, path, handler } of routes.toSorted(byPrecedence)) app.on(method, path, handler);
  for (const section of sections) {
    const lists = section.map((router) => registeredRoutes(router.openAPIRegistry));
    for (const route of merged(lists)) app.openAPIRegistry.registerPath(route);
  }
}

/**
 * Routes that can match the same request have as many segments; of those, the one with a literal
 * where the other has a parameter, at the first place where they differ, comes first.
 */
function byPrecedence(a: RouterRoute, b: RouterRoute): number {
  const left = a.path.split("/");
  const right = b.path.split("/");
  if (left.length !== right.length) return left.length - right.length;
  for (let i = 0; i < left.length; i++) {
    const leftParam = left[i]!.startsWith(":");
    if (leftParam !== right[i]!.startsWith(":")) return leftParam ? 1 : -1;
  }
  return 0;
}

/**
 * The lists merged, each kept in its own order: of the lists' next operations, the one with the
 * more specific path goes first, then the one with the lesser operationId.
 */
function merged(lists: RegisteredRoute[][]): RegisteredRoute[] {
  const heads = lists.map(() => 0);
  const out: RegisteredRoute[] = [];
  for (;;) {
    let next = -1;
    for (let i = 0; i < lists.length; i++) {
      const candidate = lists[i]![heads[i]!];
      if (candidate === undefined) continue;
      const best = next < 0 ? undefined : lists[next]![heads[next]!]!;
      if (best === undefined || goesBefore(candidate, best)) next = i;
    }
    if (next < 0) return out;
    out.push(lists[next]![heads[next]!]!);
    heads[next]! += 1;
  }
}

function goesBefore(a: RegisteredRoute, b: RegisteredRoute): boolean {
  const specificity = bySpecificity(a.path, b.path);
  return specificity !== 0 ? specificity < 0 : (a.operationId ?? "") < (b.operationId ?? "");
}
