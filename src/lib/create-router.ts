// The one place an OpenAPIHono is made: every router gets the validation hook, so no route
// falls back to the library's own error body.
import { OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { ZodError, ZodType } from "zod";
import { AppError, type FieldError } from "./problems";
import type { AppBindings } from "./types";

export function createRouter(): OpenAPIHono<AppBindings> {
  const router = new OpenAPIHono<AppBindings>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.target, result.error);
    },
  });
  const register = router.openapi;
  router.openapi = ((route: RouteConfig, handler: never, hook: never) => {
    const params = route.request?.params;
    if (!params || route.hide) return register(route, handler, hook);
    // Documented as declared; checked in the first middleware instead of the library's layer.
    const { middleware, hide: _, ...documented } = route;
    router.openAPIRegistry.registerPath(documented);
    const [first, ...rest] = middleware === undefined ? [] : [middleware].flat();
    const checked: RouteConfig = {
      ...route,
      hide: true,
      request: { ...route.request, params: undefined },
      middleware: [checkingParams(first, params as ZodType), ...rest],
    };
    return register(checked, handler, hook);
  }) as typeof router.openapi;
  return router;
}

/**
 * Path parameters are checked inside the route's first middleware (the access gate every route
 * gets from defineRoute), after it, rather than in the async validator layer @hono/zod-openapi
 * adds for them: one layer fewer on every by-id request, the commonest read. The order is the
 * library's: access first, then the parameters; a 400 is the same VALIDATION_FAILED.
 */
function checkingParams(
  first: MiddlewareHandler<AppBindings> | undefined,
  params: ZodType,
): MiddlewareHandler<AppBindings> {
  const check = (c: Context<AppBindings>) => {
    // Path parameter schemas are synchronous (no async refinements), so safeParse will do.
    const result = params.safeParse(c.req.param());
    if (!result.success) throw validationError("param", result.error);
    c.req.addValidatedData("param", result.data as object);
  };
  if (first === undefined) {
    return async (c, next) => {
      check(c);
      await next();
    };
  }
  return (c, next) =>
    first(c, async () => {
      check(c);
      await next();
    });
}

export function validationError(target: string, error: ZodError): AppError {
  // A JSON body that parsed but is not an object (an array, a string, null) is not a definition.
  if (
    target === "json" &&
    error.issues.some((issue) => issue.path.length === 0 && issue.code === "invalid_type")
  ) {
    return new AppError("INVALID_DEFINITION", "The request body must be a JSON object.");
  }
  const errors: FieldError[] = error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || target,
    message: issue.message,
  }));
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join("; ");
  return new AppError("VALIDATION_FAILED", `Invalid ${target === "json" ? "body" : target}: ${detail}`, {
    errors,
  });
}
