// Access levels are declared on each route (define-route.ts); the declaration produces both
// the enforcing middleware and the OpenAPI `security` entry, so documentation and enforcement
// cannot drift. This is the route layer: services decide entitlement and ownership themselves.
import type { Context, MiddlewareHandler } from "hono";
import type { DeviceTokenScope } from "../auth/device-token-format";
import { assertOwner, isAdmin, type Principal } from "../auth/principal";
import { AppError, forbidden } from "../lib/problems";
import { isUuid } from "../lib/uuid";
import { authenticate } from "./authenticate";
import type { AppBindings } from "./types";

export type AccessLevel = "public" | "user" | "owner" | "entitled" | "published" | "admin";

export const BEARER_SCHEME = "bearerAuth";
export const BASIC_SCHEME = "basicAuth";
/** HTTP Basic with a device token as the password: only on operations that declare its scope. */
export const DEVICE_TOKEN_SCHEME = "deviceTokenAuth";

const levelDescriptions: Record<AccessLevel, string> = {
  public: "Access: public (no credentials).",
  user: "Access: any authenticated user.",
  owner: "Access: the user the record or path names, or an admin.",
  entitled: "Access: a user with an activation for the book, or an admin.",
  published: "Access: public while the record is published (an APK: while it is active); otherwise admin.",
  admin: "Access: admin.",
};

export function accessDescription(level: AccessLevel): string {
  return levelDescriptions[level];
}

/**
 * `scope`: the device-token scope of the operation (README "Reading apps"); only there does HTTP
 * Basic with a device token authenticate, and only a token with that scope.
 */
export function requireAccess(level: AccessLevel, scope?: DeviceTokenScope): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    // `published` needs the record to decide: its handler serves a published one to anyone
    // (credentials unread, so a device's stale token does no harm) and calls authorize(c, "admin")
    // for the rest.
    if (level === "public" || level === "published") return next();
    await authorize(c, level, scope);
    return next();
  };
}

/** Authenticates the caller and checks `level` (401 without credentials, 403 below it). */
export async function authorize(
  c: Context<AppBindings>,
  level: Exclude<AccessLevel, "public" | "published">,
  scope?: DeviceTokenScope,
): Promise<Principal> {
  const principal = await authenticate(c, scope);
  if (!principal)
    throw new AppError("UNAUTHORIZED", "This endpoint needs credentials: a Bearer token or HTTP Basic.");
  if (level === "admin" && !isAdmin(principal)) throw forbidden("This endpoint is for admins.");
  // `owner` routes that name the user in the path are decided here; the others by the handler.
  // A path user that is not a UUID is the parameter check's 400, not someone else's 403.
  if (level === "owner") {
    const pathUser = c.req.param("userUUID");
    if (pathUser !== undefined && isUuid(pathUser)) assertOwner(principal, pathUser);
  }
  c.set("principal", principal);
  return principal;
}

export function securityFor(level: AccessLevel, scope?: DeviceTokenScope): Array<Record<string, string[]>> {
  if (level === "public") return [];
  // Basic first: generated clients such as @hey-api/openapi-ts merge the alternatives and let the
  // last one they can fill win, so with one auth callback (a token) they send Bearer, as expected.
  // A device token names the scope it needs (OpenAPI 3.1 lets a non-OAuth scheme list roles).
  const schemes: Array<Record<string, string[]>> = [
    ...(scope ? [{ [DEVICE_TOKEN_SCHEME]: [scope] }] : []),
    { [BASIC_SCHEME]: [] },
    { [BEARER_SCHEME]: [] },
  ];
  // `{}` is OpenAPI's "no credentials" alternative: what a published record is served with.
  return level === "published" ? [{}, ...schemes] : schemes;
}
