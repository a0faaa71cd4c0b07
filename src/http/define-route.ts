// Every operation is defined here: its access level, its errors and how its body is read are
// derived from the one declaration, so the document, the checks and the typed handler agree.
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { DeviceTokenScope } from "../auth/device-token-format";
import type { ErrorCode } from "../lib/problems";
import { type AccessLevel, accessDescription, requireAccess, securityFor } from "./access";
import { MAX_JSON_BODY_BYTES } from "./bounded-body";
import { receivePromptBody } from "./connection-timeouts";
import { type ErrorResponses, errorResponses, JSON_CONTENT_TYPE, requestIdHeader } from "./openapi";
import type { AppBindings } from "./types";

/** What a route module writes: an operation without the parts derived from its access level. */
export type RouteSpec = Omit<RouteConfig, "middleware" | "security"> & {
  /** Errors of this operation beyond those its access level and request parts imply. */
  errors?: readonly ErrorCode[];
  /**
   * The device-token scope of a reading app's operation (README "Reading apps"): HTTP Basic with a
   * device token of this scope authenticates here, beside the level's usual credentials. Every
   * other operation refuses a device token (401).
   */
  scope?: DeviceTokenScope;
};

type AccessErrorCode<L extends AccessLevel> = L extends "public"
  ? never
  : L extends "user"
    ? "UNAUTHORIZED" | "AUTHENTICATION_FAILED"
    : "UNAUTHORIZED" | "AUTHENTICATION_FAILED" | "FORBIDDEN";

/** Errors any operation can answer: a wrong method on its path, and the server's own troubles. */
const everywhere = [
  "METHOD_NOT_ALLOWED",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
  "INSUFFICIENT_STORAGE",
] as const;

/** A JSON body can be unparseable, of another media type or too large. */
const jsonBodyErrors = ["INVALID_DEFINITION", "UNSUPPORTED_MEDIA_TYPE", "PAYLOAD_TOO_LARGE"] as const;

type HasJsonBody<S extends RouteSpec> = S extends {
  request: { body: { content: { [JSON_CONTENT_TYPE]: unknown } } };
}
  ? true
  : false;

type HasInput<S extends RouteSpec> = S extends { request: infer Q }
  ? keyof Q & ("params" | "query" | "headers" | "body") extends never
    ? false
    : true
  : false;

type ImpliedErrorCode<L extends AccessLevel, S extends RouteSpec> =
  | AccessErrorCode<L>
  | (typeof everywhere)[number]
  | (HasInput<S> extends true ? "VALIDATION_FAILED" : never)
  | (HasJsonBody<S> extends true ? (typeof jsonBodyErrors)[number] : never)
  | (S["errors"] extends readonly (infer C extends ErrorCode)[] ? C : never);

/** The route @hono/zod-openapi registers: the spec with its errors, security and middleware. */
export type DefinedRoute<L extends AccessLevel, S extends RouteSpec> = Omit<
  S,
  "errors" | "responses" | "scope"
> & {
  responses: Omit<ErrorResponses<ImpliedErrorCode<L, S>>, keyof S["responses"]> & S["responses"];
  middleware: MiddlewareHandler<AppBindings>[];
  security: Array<Record<string, string[]>>;
  description: string;
};

function accessErrors(level: AccessLevel): ErrorCode[] {
  if (level === "public") return [];
  return level === "user"
    ? ["UNAUTHORIZED", "AUTHENTICATION_FAILED"]
    : ["UNAUTHORIZED", "AUTHENTICATION_FAILED", "FORBIDDEN"];
}

function scopeDescription(scope: DeviceTokenScope): string {
  return `Device tokens: HTTP Basic with the account's e-mail or login and a device token with the \`${scope}\` scope.`;
}

function bodyOf(spec: RouteSpec) {
  const body = spec.request?.body;
  return body !== undefined && "content" in body ? body : undefined;
}

/**
 * createRoute with an access level: adds the access middleware, `security`, the errors the level
 * and the request parts imply (401/403, 400 for validated input, 400/413/415 for a JSON body),
 * X-Request-Id on every response, the level to the description, and `x-access-level` (read by
 * the access test). A JSON body is read here, at once and bounded (connection-timeouts.ts); an
 * upload route (multipart) streams its own body, with its own limit, in its handler.
 */
export function defineRoute<const L extends AccessLevel, const S extends RouteSpec>(
  level: L,
  spec: S,
): DefinedRoute<L, S> {
  const { errors = [], scope, ...route } = spec;
  // `published` and `public` read no credentials before the handler: a scope there would be unchecked.
  if (scope && (level === "public" || level === "published")) {
    throw new Error(`${spec.operationId}: a device-token scope needs a level that authenticates`);
  }
  const body = bodyOf(spec);
  const jsonBody = body?.content[JSON_CONTENT_TYPE] !== undefined;
  const codes: ErrorCode[] = [
    ...accessErrors(level),
    ...(spec.request && Object.keys(spec.request).length > 0 ? (["VALIDATION_FAILED"] as const) : []),
    ...(jsonBody ? jsonBodyErrors : []),
    ...errors,
    ...everywhere,
  ];
  const middleware: MiddlewareHandler<AppBindings>[] = [requireAccess(level, scope)];
  // A body that may be left out (logout's) reads as `{}` when it is empty.
  if (jsonBody) middleware.push(receivePromptBody(MAX_JSON_BODY_BYTES, body?.required === false));
  const responses: RouteConfig["responses"] = {};
  for (const [status, response] of Object.entries({ ...errorResponses(...codes), ...route.responses })) {
    responses[status] =
      "$ref" in response ? response : { ...response, headers: { ...requestIdHeader, ...response.headers } };
  }
  const defined = {
    ...route,
    responses,
    description: [route.description, accessDescription(level), scope && scopeDescription(scope)]
      .filter(Boolean)
      .join("\n\n"),
    middleware,
    security: securityFor(level, scope),
    "x-access-level": level,
    ...(scope ? { "x-device-token-scope": scope } : {}),
  };
  // createRoute checks the shape; its result is the spec with the derived parts, as typed above.
  return createRoute(defined satisfies RouteConfig) as unknown as DefinedRoute<L, S>;
}
