// What Bun.serve answers when an error escapes the app itself (its onError catches everything a
// route throws): a bare 500 problem, never Bun's own error page with its HTML and source paths.
import { describeError } from "./error-handler";
import type { Logger } from "./logger";
import { AppError, PROBLEM_CONTENT_TYPE, problemBody } from "./problems";
import { REQUEST_ID_HEADER, SECURITY_HEADERS } from "./request-frame";

export function lastResortResponse(logger: Logger, error: unknown): Response {
  // Bun does not tell this handler which request failed, so the id is made here; it names this
  // occurrence, which is what a problem's `instance` is for.
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
