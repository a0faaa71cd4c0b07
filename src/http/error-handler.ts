// The one mapper from anything thrown to RFC 9457 problem+json (lib/problems.ts).
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { constraintViolation, isStorageFull, isUnavailable } from "../db/errors";
import { describeError } from "../lib/logger";
import { AppError, problemResponse } from "../lib/problems";
import type { AppBindings } from "./types";

export function toAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (error instanceof HTTPException) return fromHttpException(error);
  switch (constraintViolation(error)) {
    case "unique":
      return new AppError("CONFLICT", "A record with these values already exists.");
    case "check":
      return new AppError("CONFLICT", "The change would break a rule of the record.");
    case "foreign-key":
      return new AppError(
        "VALIDATION_FAILED",
        "A referenced record does not exist, or others still refer to this one.",
        {
          errors: [{ path: "", message: "referenced record does not exist or is still referenced" }],
        },
      );
    case "not-null":
      return new AppError("VALIDATION_FAILED", "A required value is missing.", {
        errors: [{ path: "", message: "required" }],
      });
    default:
      break;
  }
  if (isStorageFull(error)) {
    return new AppError("INSUFFICIENT_STORAGE", "The service has no storage space left; try again later.", {
      headers: { "Retry-After": "60" },
    });
  }
  if (isUnavailable(error)) {
    return new AppError(
      "SERVICE_UNAVAILABLE",
      "The database is not reachable or busy right now; try again shortly.",
      {
        headers: { "Retry-After": "5" },
      },
    );
  }
  return null;
}

function fromHttpException(error: HTTPException): AppError {
  switch (error.status) {
    case 400:
      // Hono's JSON validator throws this for a body that does not parse.
      return new AppError("INVALID_DEFINITION", "The request body is not valid JSON.");
    case 413:
      return new AppError("PAYLOAD_TOO_LARGE", "The request body is too large.");
    case 415:
      return new AppError("UNSUPPORTED_MEDIA_TYPE", "This endpoint does not take that Content-Type.");
    case 401:
      return new AppError("AUTHENTICATION_FAILED", "The credentials are invalid.");
    default:
      return new AppError(
        error.status >= 500 ? "INTERNAL_ERROR" : "VALIDATION_FAILED",
        "The request could not be processed.",
        {
          errors: [{ path: "", message: "invalid request" }],
        },
      );
  }
}

export function handleError(error: unknown, c: Context<AppBindings>): Response {
  const requestId = c.get("requestId");
  const known = toAppError(error);
  if (known) {
    const { logger } = c.get("deps");
    // A full volume needs an operator: one line that alarms can match, without the path.
    if (known.code === "INSUFFICIENT_STORAGE") logger.error("storage full", { requestId, alarm: "storage" });
    else if (known.status >= 500)
      logger.warn("request failed", { requestId, code: known.code, ...known.logFields });
    return problemResponse(c, known);
  }
  // Unexpected: the stack goes to the log with the request id; the client gets only the id.
  c.get("deps").logger.error("unexpected error", { requestId, ...describeError(error) });
  return problemResponse(
    c,
    new AppError(
      "INTERNAL_ERROR",
      `An unexpected error occurred; quote request id ${requestId} when reporting it.`,
    ),
    requestId,
  );
}
