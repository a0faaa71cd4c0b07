// Every error the service answers with, as RFC 9457 problem+json (API.md §2).
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

export type ProblemStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 416 | 429 | 500 | 503 | 507;

export function statusOf(code: ErrorCode): ProblemStatus {
  switch (code) {
    case "NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "UNAUTHORIZED":
    case "AUTHENTICATION_FAILED":
      return 401;
    case "FORBIDDEN":
      return 403;
    case "VALIDATION_FAILED":
    case "INVALID_DEFINITION":
    case "EMAIL_MISSING":
    case "EMAIL_MALFORMED":
      return 400;
    case "EMAIL_ALREADY_EXISTS":
    case "CONFLICT":
    case "QR_CODE_DISABLED":
    case "QR_CODE_EXHAUSTED":
    case "QR_CODE_EXPIRED":
      return 409;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    case "UNSUPPORTED_MEDIA_TYPE":
      return 415;
    case "RANGE_NOT_SATISFIABLE":
      return 416;
    case "TOO_MANY_REQUESTS":
      return 429;
    case "INTERNAL_ERROR":
      return 500;
    case "SERVICE_UNAVAILABLE":
      return 503;
    case "INSUFFICIENT_STORAGE":
      return 507;
    default: {
      const unhandled: never = code;
      throw new Error(`no status for ${String(unhandled)}`);
    }
  }
}

const titles: Record<ErrorCode, string> = {
  NOT_FOUND: "Not Found",
  METHOD_NOT_ALLOWED: "Method Not Allowed",
  UNAUTHORIZED: "Unauthorized",
  AUTHENTICATION_FAILED: "Authentication Failed",
  FORBIDDEN: "Forbidden",
  VALIDATION_FAILED: "Validation Failed",
  INVALID_DEFINITION: "Invalid Definition",
  EMAIL_MISSING: "E-mail Missing",
  EMAIL_MALFORMED: "E-mail Malformed",
  EMAIL_ALREADY_EXISTS: "E-mail Already Exists",
  CONFLICT: "Conflict",
  QR_CODE_DISABLED: "QR Code Disabled",
  QR_CODE_EXHAUSTED: "QR Code Exhausted",
  QR_CODE_EXPIRED: "QR Code Expired",
  PAYLOAD_TOO_LARGE: "Payload Too Large",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported Media Type",
  RANGE_NOT_SATISFIABLE: "Range Not Satisfiable",
  TOO_MANY_REQUESTS: "Too Many Requests",
  INTERNAL_ERROR: "Internal Server Error",
  SERVICE_UNAVAILABLE: "Service Unavailable",
  INSUFFICIENT_STORAGE: "Insufficient Storage",
};

export function titleOf(code: ErrorCode): string {
  return titles[code];
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

/** An expected failure: thrown anywhere, answered by the one error mapper in app.ts. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: ProblemStatus;
  readonly errors: FieldError[] | undefined;
  /** Extra response headers, e.g. Allow for 405 or Retry-After for 429/503/507. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = "AppError";
    this.code = code;
    this.status = statusOf(code);
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export const notFound = (what: string) => new AppError("NOT_FOUND", `${what} was not found.`);
export const conflict = (detail: string) => new AppError("CONFLICT", detail);
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
  if (error.code === "UNAUTHORIZED") headers["WWW-Authenticate"] = 'Bearer realm="bookdist"';
  const body =
    c.req.method === "HEAD"
      ? null
      : JSON.stringify(problemBody(error, requestTargetOf(c.req.url).pathname, requestId));
  return new Response(body, { status: error.status, headers });
}
