// What Bun.serve answers itself, outside the app: a bare problem+json, never Bun's own error page
// (HTML with source paths).

import type { Logger } from "../lib/logger";
import { describeError } from "../lib/logger";
import { AppError, PROBLEM_CONTENT_TYPE, problemBody } from "../lib/problems";
import { REQUEST_ID_HEADER, SECURITY_HEADERS } from "./request-frame";

/** Bun.serve's `error` handler: an error that escaped the app itself (its onError catches the rest). */
export function lastResortResponse(logger: Logger, error: unknown): Response {
  // Bun does not say which request failed, so the id is made here; it names this occurrence,
  // which is what a problem's `instance` is for.
  const requestId = crypto.randomUUID();
  logger.error("unexpected error outside the app", { requestId, ...describeError(error) });
  const problem = new AppError(
    "INTERNAL_ERROR",
    `An unexpected error occurred; quote request id ${requestId} when reporting it.`,
  );
  return new Response(JSON.stringify(problemBody(problem, `urn:uuid:${requestId}`, requestId)), {
    status: 500,
    headers: {
      ...Object.fromEntries(SECURITY_HEADERS),
      "Content-Type": `${PROBLEM_CONTENT_TYPE}; charset=UTF-8`,
      [REQUEST_ID_HEADER]: requestId,
    },
  });
}
