// What a test reads off a response, in the contract's terms: a problem with its status and code
// (RFC 9457 problem+json), or a body that is what the route's response schema says it is.
import { expect } from "bun:test";
import { z } from "zod";
import type { ErrorCode, Problem } from "../../src/lib/problems";

/** The decoded JSON body (throws with the body when it is not JSON). */
export async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 200)}`);
  }
}

/**
 * The body, checked against `schema` (a response schema from src/routes/<resource>/<resource>.schemas.ts) and
 * returned as sent, not as parsed: a key the schema does not know stays, so `toEqual` still sees it.
 */
export async function bodyAs<S extends z.ZodType>(response: Response, schema: S): Promise<z.output<S>> {
  const body = await jsonOf(response);
  const checked = schema.safeParse(body);
  if (!checked.success) {
    throw new Error(`body does not match its schema (${response.status}): ${z.prettifyError(checked.error)}`);
  }
  return body as z.output<S>;
}

/** Asserts the response is the problem `code` with `status`, and returns the problem. */
export async function expectProblem(response: Response, status: number, code: ErrorCode): Promise<Problem> {
  expect(response.status).toBe(status);
  const problem = (await jsonOf(response)) as Problem;
  expect(problem.code).toBe(code);
  return problem;
}
