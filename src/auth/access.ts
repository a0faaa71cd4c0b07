// Access levels are declared on each route; the declaration produces both the enforcing
// middleware and the OpenAPI `security` entry, so documentation and enforcement cannot drift.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { errorResponses } from "../lib/openapi";
import { AppError, type ErrorCode } from "../lib/problems";
import type { AppBindings } from "../lib/types";
import { authenticate } from "./authenticate";
import { isAdmin, type Principal } from "./principal";

export type AccessLevel = "public" | "user" | "owner" | "entitled" | "published" | "admin";

export const BEARER_SCHEME = "bearerAuth";
export const BASIC_SCHEME = "basicAuth";

const levelDescriptions: Record<AccessLevel, string> = {
  public: "Access: public (no credentials).",
  user: "Access: any authenticated user.",
  owner: "Access: the user the record or path names, or an admin.",
  entitled: "Access: a user with an activation for the book, or an admin.",
  published: "Access: public while the record is published (an APK: while it is active); otherwise admin.",
  admin: "Access: admin.",
};

export const forbidden = (detail = "You may not do this.") => new AppError("FORBIDDEN", detail);

export function requireAccess(level: AccessLevel): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    // `published` needs the record to decide: its handler serves a published one to anyone
    // (credentials unread, so a device's stale token does no harm) and calls authorize(c, "admin")
    // for the rest.
    if (level === "public" || level === "published") return next();
    await authorize(c, level);
    return next();
  };
}

/** Authenticates the caller and checks `level` (401 without credentials, 403 below it). */
export async function authorize(
  c: Context<AppBindings>,
  level: Exclude<AccessLevel, "public" | "published">,
): Promise<Principal> {
  const principal = await authenticate(c);
  if (!principal)
    throw new AppError("UNAUTHORIZED", "This endpoint needs credentials: a Bearer token or HTTP Basic.");
  if (level === "admin" && !isAdmin(principal)) throw forbidden("This endpoint is for admins.");
  // `owner` routes that name the user in the path are decided here; the others by the handler.
  const pathUser = c.req.param("userUUID");
  if (level === "owner" && pathUser !== undefined) assertOwner(principal, pathUser);
  c.set("principal", principal);
  return principal;
}

export function assertOwner(principal: Principal, userUuid: string): void {
  if (!isAdmin(principal) && principal.userUuid !== userUuid.toLowerCase()) {
    throw forbidden("This belongs to another user.");
  }
}

export function securityFor(level: AccessLevel): Array<Record<string, string[]>> {
  if (level === "public") return [];
  const schemes: Array<Record<string, string[]>> = [{ [BEARER_SCHEME]: [] }, { [BASIC_SCHEME]: [] }];
  // `{}` is OpenAPI's "no credentials" alternative: what a published record is served with.
  return level === "published" ? [{}, ...schemes] : schemes;
}

function accessErrors(level: AccessLevel): ErrorCode[] {
  if (level === "public") return [];
  return level === "user"
    ? ["UNAUTHORIZED", "AUTHENTICATION_FAILED"]
    : ["UNAUTHORIZED", "AUTHENTICATION_FAILED", "FORBIDDEN"];
}

/**
 * createRoute with an access level: adds the middleware, `security`, the 401/403 responses,
 * the level to the description, and `x-access-level` (read by the access test).
 */
export function defineRoute<const R extends Omit<RouteConfig, "middleware" | "security">>(
  level: AccessLevel,
  route: R,
  extraMiddleware: MiddlewareHandler<AppBindings>[] = [],
) {
  const description = [route.description, levelDescriptions[level]].filter(Boolean).join("\n\n");
  return createRoute({
    ...route,
    description,
    middleware: [requireAccess(level), ...extraMiddleware],
    security: securityFor(level),
    "x-access-level": level,
    responses: {
      ...errorResponses(
        ...accessErrors(level),
        "INTERNAL_ERROR",
        "SERVICE_UNAVAILABLE",
        "INSUFFICIENT_STORAGE",
      ),
      ...route.responses,
    },
  } as R & { middleware: MiddlewareHandler<AppBindings>[] });
}
