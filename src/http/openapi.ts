// Schemas and response declarations shared by every route module.
import { type RouteConfig, z } from "@hono/zod-openapi";
import { MULTI_LINE, SINGLE_LINE } from "../lib/control-characters";
import {
  type ErrorCode,
  headersOf,
  kebab,
  PROBLEM_CONTENT_TYPE,
  type Problem,
  type StatusOf,
  statusOf,
  titleOf,
} from "../lib/problems";

export const JSON_CONTENT_TYPE = "application/json";

const DECIMAL_ID = /^[1-9][0-9]*$/;

/**
 * A 64-bit id that JavaScript can hold exactly (≤ 2^53−1): a JSON number, or in a path plain
 * decimal digits. Only those digits are converted; `z.coerce` would take `0x10`, `1e3`, `+7`,
 * `007` and ` 7` as numbers too. The document still says integer, so SDKs take numbers.
 */
export const Id = z
  .preprocess(
    (value) => (typeof value === "string" && DECIMAL_ID.test(value) ? Number(value) : value),
    z.number({ error: "Expected a positive integer such as 7" }).int().min(1).max(Number.MAX_SAFE_INTEGER),
  )
  .openapi({
    type: "integer",
    format: "int64",
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 7,
  });

export const IdParam = z.object({
  id: Id.openapi({ param: { name: "id", in: "path" }, description: "Record id" }),
});

export const Timestamp = z.iso.datetime().openapi({ example: "2026-11-21T10:04:05.123Z" });

// Dates in request bodies are RFC 3339 with a year from 1970 to 9999, on every
// database alike. Zod's datetime takes any four-digit year (0000 too, which Postgres cannot store),
// and an offset can carry 9999-12-31 into year 10000 (which SQLite answers as "+010000-…"), so both
// the year as written and the instant it names are held to the range.
const YEAR_1970_TO_9999 = /^(?:19[7-9][0-9]|[2-9][0-9]{3})-/;
const FIRST_INSTANT = Date.UTC(1970, 0, 1);
const LAST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const DATE_RANGE = "from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z";

/** A date-time of a request body: RFC 3339 with an offset, within the years 1970 to 9999. */
export const requestDateTime = () =>
  z.iso
    .datetime({ offset: true })
    .regex(YEAR_1970_TO_9999, "must have a year from 1970 to 9999")
    .refine((value) => {
      const instant = Date.parse(value);
      return instant >= FIRST_INSTANT && instant <= LAST_INSTANT;
    }, `must lie ${DATE_RANGE}`)
    // Stated outright: the generator shows a regex instead of the format, and loses both once a
    // route pipes the date into a transform.
    .openapi({
      format: "date-time",
      pattern: YEAR_1970_TO_9999.source,
      description: `RFC 3339 date-time with a year from 1970 to 9999, also once its offset is applied (${DATE_RANGE})`,
    });

/** When a stored record was made and last changed, as every such resource answers them. */
export const timestamps = { createdAt: Timestamp, updatedAt: Timestamp };

/** A row's `timestamps`. */
export function timestampsOf(row: { createdAt: Date; updatedAt: Date }) {
  return { createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

/**
 * A named (registered) schema, or null. `.nullable()` on a named schema makes the library register
 * the component itself as nullable, so every other use of it (e.g. the 201 of a create) becomes
 * "object or null" in the document and the generated SDKs; a union leaves the component alone.
 */
export function orNull<T extends z.ZodType>(schema: T, description?: string) {
  const union = z.union([schema, z.null()]);
  return description ? union.openapi({ description }) : union;
}

const FieldErrorSchema = z
  .object({
    path: z.string().openapi({ example: "title" }),
    message: z.string().openapi({ example: "Too small: expected string to have >=1 characters" }),
  })
  .openapi("FieldError");

const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: "urn:problem:not-found" }),
    title: z.string().openapi({ example: "Not Found" }),
    status: z.number().int().openapi({ example: 404 }),
    detail: z.string().openapi({ example: "Book 7 was not found." }),
    code: z.string().openapi({ example: "NOT_FOUND" }),
    instance: z.string().openapi({ example: "/book/7" }),
    errors: z.array(FieldErrorSchema).optional(),
    requestId: z.string().optional().openapi({
      description: "Present on 500: quote it when reporting the problem.",
      example: "5b0e3c52-8a0d-4f5e-9d8e-2f6f0c1a7b34",
    }),
  })
  .openapi("Problem", { description: "RFC 9457 problem details; `errors` only for VALIDATION_FAILED." });

/** Every response carries X-Request-Id: declared once, referenced everywhere. */
export const REQUEST_ID_HEADER = "X-Request-Id";
export const requestIdHeader = {
  [REQUEST_ID_HEADER]: { $ref: `#/components/headers/${REQUEST_ID_HEADER}` },
};
export const requestIdHeaderComponent = {
  description:
    "Echoes a sane incoming X-Request-Id from a TRUSTED_PROXIES peer, else a new one (the client's is logged as clientRequestId); logs carry it",
  schema: { type: "string" as const, example: "5b0e3c52-8a0d-4f5e-9d8e-2f6f0c1a7b34" },
};

type ProblemExamples = Record<string, { summary: string; value: Problem }>;

/** The headers of a response, as the library's route type takes them. */
type ResponseHeaders = Exclude<
  Exclude<RouteConfig["responses"][string], { $ref: string }>["headers"],
  z.ZodType | undefined
>;

/** How a route declares the answers of one error status: problem+json with an example per code. */
interface ProblemResponse {
  description: string;
  headers: ResponseHeaders;
  content: { [PROBLEM_CONTENT_TYPE]: { schema: typeof ProblemSchema; examples: ProblemExamples } };
}

/** A route's error responses, keyed by the literal statuses of `C`. */
export type ErrorResponses<C extends ErrorCode> = { [S in StatusOf<C>]: ProblemResponse };

/**
 * The error responses a route can give, grouped by status, so the OpenAPI document lists every
 * error a client can get, each code with an example body (Swagger UI offers them by name) and
 * the headers its definition names.
 */
export function errorResponses<const C extends readonly ErrorCode[]>(...codes: C): ErrorResponses<C[number]> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ProblemResponse> = {};
  for (const [status, group] of byStatus) {
    responses[status] = {
      description: group.map((code) => `${code}: ${titleOf(code)}`).join("; "),
      headers: Object.assign({}, requestIdHeader, ...group.map(headersOf)),
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: ProblemSchema,
          examples: Object.fromEntries(
            group.map((code) => [code, { summary: titleOf(code), value: exampleProblem(code) }]),
          ),
        },
      },
    };
  }
  // The map's keys are exactly StatusOf<C[number]>; TypeScript cannot follow a loop to see it.
  return responses as ErrorResponses<C[number]>;
}

const exampleDetails: Partial<Record<ErrorCode, string>> = {
  NOT_FOUND: "Book 7 was not found.",
  UNAUTHORIZED: "This endpoint needs credentials: a Bearer token or HTTP Basic.",
  AUTHENTICATION_FAILED: "The credentials are invalid, expired or ended.",
  FORBIDDEN: "This endpoint is for admins.",
  VALIDATION_FAILED: "Invalid body: title: Too small: expected string to have >=1 characters",
  INVALID_DEFINITION: "The request body is not valid JSON.",
  INTERNAL_ERROR: "Something went wrong; quote the request id when reporting it.",
};

/** The problem body a client gets for `code`, as an example for the document. */
function exampleProblem(code: ErrorCode): Problem {
  return {
    type: `urn:problem:${kebab(code)}`,
    title: titleOf(code),
    status: statusOf(code),
    detail: exampleDetails[code] ?? `${titleOf(code)}.`,
    code,
    instance: "/book/7",
    ...(code === "VALIDATION_FAILED"
      ? { errors: [{ path: "title", message: "Too small: expected string to have >=1 characters" }] }
      : {}),
    ...(code === "INTERNAL_ERROR" ? { requestId: "5b0e3c52-8a0d-4f5e-9d8e-2f6f0c1a7b34" } : {}),
  };
}

export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { [JSON_CONTENT_TYPE]: { schema } } };
}

export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return { required: true, description, content: { [JSON_CONTENT_TYPE]: { schema } } };
}

/** A multipart upload with one binary part `file`: a plain schema object, so nothing buffers it. */
export function fileUploadBody(description: string) {
  return {
    required: true,
    description,
    content: {
      "multipart/form-data": {
        schema: {
          type: "object" as const,
          required: ["file"],
          properties: { file: { type: "string" as const, format: "binary" } },
        },
      },
    },
  };
}

/** A string of one line: no C0 control character at all (the base of every input string). */
export const singleLine = () =>
  z.string().regex(SINGLE_LINE, "must not contain control characters (U+0000 to U+001F)");

/** A string that may span lines: tab, line feed and carriage return, no other C0 control. */
export const multiLine = () =>
  z
    .string()
    .regex(
      MULTI_LINE,
      "must not contain control characters (U+0000 to U+001F) other than tab, line feed and carriage return",
    );

/** Trimmed single-line strings, as every string of a request body is. */
export const trimmed = (max: number, min = 0) => singleLine().trim().min(min).max(max);

/** An optional trimmed string; empty means absent (stored as null). Single-line unless `base` says. */
export const optionalText = (max: number, base: z.ZodString = singleLine()) =>
  base
    .trim()
    .max(max)
    .nullish()
    .transform((value) => (value ? value : null));

/** Example values of a release's version fields (a book version, an APK). */
interface VersionExample {
  versionCode: number;
  versionName: string;
  releaseNotes: string;
}

/** A release's version fields as answered. */
export function versionFields(example: VersionExample) {
  return {
    versionCode: z.number().int().openapi({ example: example.versionCode }),
    versionName: z.string().openapi({ example: example.versionName }),
    releaseNotes: z.string().nullable().openapi({ example: example.releaseNotes }),
  };
}

/** The same fields as written; `codeDescription` says what the code is unique in ("Unique per book"). */
export function versionInputFields(example: VersionExample, codeDescription: string) {
  return {
    versionCode: z
      .number()
      .int()
      .min(1)
      .max(2_147_483_647)
      .openapi({ example: example.versionCode, description: codeDescription }),
    versionName: trimmed(64, 1).openapi({ example: example.versionName }),
    releaseNotes: optionalText(10000, multiLine()).openapi({ example: example.releaseNotes }),
  };
}
