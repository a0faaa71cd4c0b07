// Every error the service answers with, as RFC 9457 problem+json.
import type { Context } from "hono";
import { requestTargetOf } from "./request-target";

export const errorCodes = [
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "UNAUTHORIZED",
  "AUTHENTICATION_FAILED",
  "FORBIDDEN",
  "VALIDATION_FAILED",
  "INVALID_DEFINITION",
  "EMAIL_MISSING",
  "EMAIL_MALFORMED",
  "EMAIL_ALREADY_EXISTS",
  "CONFLICT",
  "QR_CODE_DISABLED",
  "QR_CODE_EXHAUSTED",
  "QR_CODE_EXPIRED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "RANGE_NOT_SATISFIABLE",
  "TOO_MANY_REQUESTS",
  "INTERNAL_ERROR",
  "SERVICE_UNAVAILABLE",
  "INSUFFICIENT_STORAGE",
] as const;

export type ErrorCode = (typeof errorCodes)[number];

/**
 * A response header a problem carries, declared in the OpenAPI document of its status. A type, not
 * an interface: only a type fits the library's header object (with its `x-` index signature), so a
 * route that answers a status with a body of its own can still declare the status's headers.
 */
export type ProblemHeader = {
  description: string;
  schema: { type: "string" | "integer" };
};

const retryAfter: Record<string, ProblemHeader> = {
  "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } },
};

const wwwAuthenticate: Record<string, ProblemHeader> = {
  "WWW-Authenticate": {
    description: "The scheme to authenticate with: `Bearer`",
    schema: { type: "string" },
  },
};

/**
 * Every error code's status, title and the headers its answers carry. The one
 * source for the mapper, for `AppError` and for the error responses of the OpenAPI document;
 * `satisfies` makes a code without a definition a compile error.
 */
const errorDefinitions = {
  NOT_FOUND: { status: 404, title: "Not Found" },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: "Method Not Allowed",
    headers: { Allow: { description: "The methods this path supports", schema: { type: "string" } } },
  },
  UNAUTHORIZED: { status: 401, title: "Unauthorized", headers: wwwAuthenticate },
  AUTHENTICATION_FAILED: { status: 401, title: "Authentication Failed", headers: wwwAuthenticate },
  FORBIDDEN: { status: 403, title: "Forbidden" },
  VALIDATION_FAILED: { status: 400, title: "Validation Failed" },
  INVALID_DEFINITION: { status: 400, title: "Invalid Definition" },
  EMAIL_MISSING: { status: 400, title: "E-mail Missing" },
  EMAIL_MALFORMED: { status: 400, title: "E-mail Malformed" },
  EMAIL_ALREADY_EXISTS: { status: 409, title: "E-mail Already Exists" },
  CONFLICT: { status: 409, title: "Conflict" },
  QR_CODE_DISABLED: { status: 409, title: "QR Code Disabled" },
  QR_CODE_EXHAUSTED: { status: 409, title: "QR Code Exhausted" },
  QR_CODE_EXPIRED: { status: 409, title: "QR Code Expired" },
  PAYLOAD_TOO_LARGE: { status: 413, title: "Payload Too Large" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: "Unsupported Media Type" },
  RANGE_NOT_SATISFIABLE: {
    status: 416,
    title: "Range Not Satisfiable",
    headers: { "Content-Range": { description: "`bytes */<size>`", schema: { type: "string" } } },
  },
  TOO_MANY_REQUESTS: { status: 429, title: "Too Many Requests", headers: retryAfter },
  INTERNAL_ERROR: { status: 500, title: "Internal Server Error" },
  SERVICE_UNAVAILABLE: { status: 503, title: "Service Unavailable", headers: retryAfter },
  INSUFFICIENT_STORAGE: { status: 507, title: "Insufficient Storage", headers: retryAfter },
} as const satisfies Record<
  ErrorCode,
  { status: number; title: string; headers?: Record<string, ProblemHeader> }
>;

/** The status of `C`, as a literal type (so route definitions keep their literal statuses). */
export type StatusOf<C extends ErrorCode> = (typeof errorDefinitions)[C]["status"];

export type ProblemStatus = StatusOf<ErrorCode>;

export function statusOf<C extends ErrorCode>(code: C): StatusOf<C> {
  return errorDefinitions[code].status;
}

/** The headers answers with `code` carry, for the document. */
export function headersOf(code: ErrorCode): Record<string, ProblemHeader> {
  const definition = errorDefinitions[code];
  return "headers" in definition ? definition.headers : {};
}

export function titleOf(code: ErrorCode): string {
  return errorDefinitions[code].title;
}

export interface FieldError {
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance: string;
  errors?: FieldError[];
  requestId?: string;
}

/** An expected failure: thrown anywhere, answered by the one error mapper (http/error-handler.ts). */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: ProblemStatus;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers, e.g. Allow for 405 or Retry-After for 429/503/507. */
  readonly headers: Record<string, string>;
  /**
   * What the log line of a failed request adds for the operator (e.g. why a dependency is
   * unavailable: its credentials refused, or it cannot be reached); never sent to the client.
   */
  readonly logFields: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    detail: string,
    options: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      logFields?: Record<string, string>;
    } = {},
  ) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.status = statusOf(code);
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.logFields = options.logFields;
  }
}

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} was not found.`);
export const forbidden = (detail = "You may not do this.") => new AppError("FORBIDDEN", detail);
export const validationFailed = (path: string, message: string) =>
  new AppError("VALIDATION_FAILED", `${path}: ${message}`, { errors: [{ path, message }] });

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export function kebab(code: ErrorCode): string {
  return code.toLowerCase().replaceAll("_", "-");
}

export function problemBody(error: AppError, instance: string, requestId?: string): Problem {
  return {
    type: `urn:problem:${kebab(error.code)}`,
    title: titleOf(error.code),
    status: error.status,
    detail: error.message,
    code: error.code,
    instance,
    ...(error.code === "VALIDATION_FAILED" ? { errors: error.errors ?? [] } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

export function problemResponse(c: Context, error: AppError, requestId?: string): Response {
  const headers: Record<string, string> = { "Content-Type": PROBLEM_CONTENT_TYPE, ...error.headers };
  // Every 401 names the scheme (WWW-Authenticate); a token that failed says so (RFC 6750 §3.1).
  if (error.code === "UNAUTHORIZED") headers["WWW-Authenticate"] = 'Bearer realm="bookdist"';
  if (error.code === "AUTHENTICATION_FAILED") {
    headers["WWW-Authenticate"] = 'Bearer realm="bookdist", error="invalid_token"';
  }
  const body =
    c.req.method === "HEAD"
      ? null
      : JSON.stringify(problemBody(error, requestTargetOf(c.req.url).pathname, requestId));
  return new Response(body, { status: error.status, headers });
}
