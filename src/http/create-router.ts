// The one place an OpenAPIHono is made: every router gets the validation hook, so no route
// falls back to the library's own error body.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { AppError, type FieldError } from "../lib/problems";
import type { AppBindings, AppRouteHandler } from "./types";

function createRouter(): OpenAPIHono<AppBindings> {
  return new OpenAPIHono<AppBindings>({
    defaultHook: (result) => {
      // @hono/zod-validator hands the hook what it parsed (`data`) on failure too; its type says so
      // only for success.
      if (!result.success) {
        throw validationError(result.target, result.error, (result as { data?: unknown }).data);
      }
    },
  });
}

/** What a field that was not sent at all is told, whatever its type (the problem's `errors`). */
export const REQUIRED_MESSAGE = "required";

/**
 * Issues about a value's type or choice: for a field that is absent, zod words them after what it
 * expected ("expected one of …", "received undefined"), where the client needs to hear that the
 * field is missing. A rule's own message (a refinement, a range) stays.
 */
const TYPE_ISSUES = new Set(["invalid_type", "invalid_value", "invalid_union"]);

/** The value at an issue's path in what the request sent; undefined when any step is missing. */
function sentAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function messageOf(issue: ZodError["issues"][number], input: unknown): string {
  return issue.path.length > 0 && TYPE_ISSUES.has(issue.code) && sentAt(input, issue.path) === undefined
    ? REQUIRED_MESSAGE
    : issue.message;
}

export function validationError(target: string, error: ZodError, input: unknown): AppError {
  // A JSON body that parsed but is not an object (an array, a string, null) is not a definition.
  if (
    target === "json" &&
    error.issues.some((issue) => issue.path.length === 0 && issue.code === "invalid_type")
  ) {
    return new AppError("INVALID_DEFINITION", "The request body must be a JSON object.");
  }
  const errors: FieldError[] = error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || target,
    message: messageOf(issue, input),
  }));
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join("; ");
  return new AppError("VALIDATION_FAILED", `Invalid ${target === "json" ? "body" : target}: ${detail}`, {
    errors,
  });
}

/** A route module's routes, and its handler module with one handler typed by each route. */
type HandlersOf<R extends Record<string, RouteConfig>> = { [K in keyof R]: AppRouteHandler<R[K]> };

/**
 * A resource's router: every route of its routes module with the handler of the same name (the
 * compiler holds that there is one, typed by its route), registered most specific path first
 * (`/book/count` before `/book/{id}`), others in the order given. That is the order the OpenAPI
 * document lists them in; routing does not depend on it (mount-routers.ts).
 */
export function createResourceRouter<R extends Record<string, RouteConfig>>(
  routes: R,
  handlers: HandlersOf<R>,
): OpenAPIHono<AppBindings> {
  const router = createRouter();
  // Object.keys is typed string[]; these are exactly the keys of `routes`.
  const names = Object.keys(routes) as (keyof R & string)[];
  const pathOf = (name: keyof R & string) => routes[name]?.path ?? "";
  for (const name of names.sort((a, b) => bySpecificity(pathOf(a), pathOf(b)))) {
    register(router, routes[name], handlers[name]);
  }
  return router;
}

/** One route with its handler; the mapped type above already matched them by name. */
function register<R extends RouteConfig>(
  router: OpenAPIHono<AppBindings>,
  route: R,
  handler: AppRouteHandler<R>,
): void {
  router.openapi(route, handler);
}

/** Negative when path `a` has a literal segment where `b` has a parameter, first place they differ. */
export function bySpecificity(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const leftParam = left[i]!.startsWith("{");
    const rightParam = right[i]!.startsWith("{");
    if (leftParam !== rightParam) return leftParam ? 1 : -1;
  }
  return 0;
}
