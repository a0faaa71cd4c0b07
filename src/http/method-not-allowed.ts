// 405 with Allow, decided before routing: hono/method-not-allowed merges the methods
// of every pattern a path matches, where Allow must list those of the most specific one.
import type { Context, MiddlewareHandler } from "hono";
import { AppError, problemResponse } from "../lib/problems";
import type { AppBindings } from "./types";

interface RouteLike {
  method: string;
  path: string;
}

/** A route pattern split at "/": a literal segment, or null for a parameter. */
interface RouteShape {
  segments: (string | null)[];
  methods: Set<string>;
  allow: string;
}

/**
 * Decided on the most specific pattern the path matches: a literal segment wins over a
 * parameter in the same place, so POST /book/count answers Allow: GET, HEAD rather than the
 * methods of /book/{id}, and PUT /book/count is a 405 rather than a 400 for the id "count".
 */
export function methodNotAllowed(app: { routes: RouteLike[] }): MiddlewareHandler<AppBindings> {
  let index = new ShapeIndex([]);
  let builtFor = -1;
  return async (c, next) => {
    // Routes can still be added after createApp (tests do): rebuild when the table grows.
    if (app.routes.length !== builtFor) {
      index = new ShapeIndex(app.routes);
      builtFor = app.routes.length;
    }
    const shape = index.mostSpecific(c.req.path);
    if (shape === undefined || shape.methods.has(c.req.method)) return next();
    return methodNotAllowedResponse(c, shape.allow);
  };
}

/**
 * The route shapes, bucketed by segment count and first segment (a parameter's bucket is keyed
 * by the count alone) and sorted most specific first, so a request compares itself with a
 * handful of shapes and takes the first that matches. The lookup runs on every request.
 */
class ShapeIndex {
  private readonly buckets = new Map<string, RouteShape[]>();

  constructor(routes: RouteLike[]) {
    const methodsByPath = new Map<string, Set<string>>();
    for (const route of routes) {
      if (route.method === "ALL" || route.method === "HEAD" || route.path.includes("*")) continue;
      const methods = methodsByPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      if (route.method === "GET") methods.add("HEAD");
      methodsByPath.set(route.path, methods);
    }
    const shapes: RouteShape[] = [];
    for (const [path, methods] of methodsByPath) {
      const segments = path
        .split("/")
        .slice(1)
        .map((segment) => (segment.startsWith(":") ? null : segment));
      const allow = [...methods].sort((a, b) => methodOrder(a) - methodOrder(b)).join(", ");
      shapes.push({ segments, methods, allow });
    }
    // A stable sort keeps registration order between equally specific shapes.
    shapes.sort((a, b) => (moreSpecific(a, b) ? -1 : moreSpecific(b, a) ? 1 : 0));
    for (const shape of shapes) {
      const key = bucketKey(shape.segments.length, shape.segments[0] ?? null);
      const bucket = this.buckets.get(key) ?? [];
      bucket.push(shape);
      this.buckets.set(key, bucket);
    }
  }

  mostSpecific(path: string): RouteShape | undefined {
    const parts = path.split("/");
    const length = parts.length - 1; // the path starts with "/"
    // Shapes that begin with a literal are more specific than those that begin with a parameter.
    return (
      firstMatch(this.buckets.get(bucketKey(length, parts[1] ?? "")), parts) ??
      firstMatch(this.buckets.get(bucketKey(length, null)), parts)
    );
  }
}

/** Allow lists methods in one fixed order, whatever order the routes were registered in. */
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

function methodOrder(method: string): number {
  const index = METHOD_ORDER.indexOf(method);
  return index < 0 ? METHOD_ORDER.length : index;
}

function firstMatch(bucket: RouteShape[] | undefined, parts: string[]): RouteShape | undefined {
  if (bucket === undefined) return undefined;
  for (const shape of bucket) {
    if (matches(shape, parts)) return shape;
  }
  return undefined;
}

function bucketKey(length: number, first: string | null): string {
  return first === null ? `${length}:` : `${length}/${first}`;
}

/** `parts` is the path split at "/", so parts[i + 1] is the segment for segments[i]. */
function matches(shape: RouteShape, parts: string[]): boolean {
  const { segments } = shape;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const part = parts[i + 1];
    if (segment === null ? part === "" : segment !== part) return false;
  }
  return true;
}

/** Whether `a` has a literal where `b` has a parameter, at the first place where they differ. */
function moreSpecific(a: RouteShape, b: RouteShape): boolean {
  for (let i = 0; i < a.segments.length; i++) {
    const aLiteral = a.segments[i] !== null;
    if (aLiteral !== (b.segments[i] !== null)) return aLiteral;
  }
  return false;
}

function methodNotAllowedResponse(c: Context<AppBindings>, allow: string): Response {
  return problemResponse(
    c,
    new AppError("METHOD_NOT_ALLOWED", `${c.req.method} is not supported here; use ${allow}.`, {
      headers: { Allow: allow },
    }),
  );
}
