// What Bun.serve answers itself, outside the app: a bare problem+json, never Bun's own error page
// (HTML with source paths) nor a dropped connection.
import { describeError } from "./error-handler";
import type { Logger } from "./logger";
import { AppError, PROBLEM_CONTENT_TYPE, problemBody } from "./problems";
import { REQUEST_ID_HEADER, SECURITY_HEADERS } from "./request-frame";

/** Seconds a client should wait before retrying elsewhere or here. */
const SHUTDOWN_RETRY_AFTER = "5";

function bareProblem(problem: AppError, requestId: string, headers: Record<string, string> = {}): Response {
  // Bun does not say which request failed, so the id is made here; it names this occurrence,
  // which is what a problem's `instance` is for.
  return new Response(JSON.stringify(problemBody(problem, `urn:uuid:${requestId}`, requestId)), {
    status: problem.status,
    headers: {
      ...Object.fromEntries(SECURITY_HEADERS),
      "Content-Type": `${PROBLEM_CONTENT_TYPE}; charset=UTF-8`,
      [REQUEST_ID_HEADER]: requestId,
      ...headers,
    },
  });
}

/** Bun.serve's `error` handler: an error that escaped the app itself (its onError catches the rest). */
export function lastResortResponse(logger: Logger, error: unknown): Response {
  const requestId = crypto.randomUUID();
  logger.error("unexpected error outside the app", { requestId, ...describeError(error) });
  const problem = new AppError(
    "INTERNAL_ERROR",
    `An unexpected error occurred; quote request id ${requestId} when reporting it.`,
  );
  return bareProblem(problem, requestId);
}

/** A request that still arrives while the instance shuts down (API.md §2: 503). */
export function shuttingDownResponse(): Response {
  const problem = new AppError("SERVICE_UNAVAILABLE", "This instance is shutting down; try again.");
  return bareProblem(problem, crypto.randomUUID(), {
    "Retry-After": SHUTDOWN_RETRY_AFTER,
    Connection: "close",
  });
}
