// Schemas and response declarations shared by every route module.
import { z } from "@hono/zod-openapi";
import { type ErrorCode, PROBLEM_CONTENT_TYPE, statusOf, titleOf } from "./problems";

export const JSON_CONTENT_TYPE = "application/json";

/** A 64-bit id that JavaScript can hold exactly (API.md §1). */
export const Id = z.coerce
  .number()
  .int()
  .min(1)
  .max(Number.MAX_SAFE_INTEGER)
  .openapi({ type: "integer", format: "int64", minimum: 1, example: 7 });

export const IdParam = z.object({
  id: Id.openapi({ param: { name: "id", in: "path" }, description: "Record id" }),
});

export const Timestamp = z.iso.datetime().openapi({ example: "2026-11-21T10:04:05.123Z" });

export const FieldErrorSchema = z.object({ path: z.string(), message: z.string() }).openapi("FieldError");

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: "urn:problem:not-found" }),
    title: z.string().openapi({ example: "Not Found" }),
    status: z.number().int().openapi({ example: 404 }),
    detail: z.string().openapi({ example: "Book 7 was not found." }),
    code: z.string().openapi({ example: "NOT_FOUND" }),
    instance: z.string().openapi({ example: "/book/7" }),
    errors: z.array(FieldErrorSchema).optional(),
    requestId: z
      .string()
      .optional()
      .openapi({ description: "Present on 500: quote it when reporting the problem." }),
  })
  .openapi("Problem", { description: "RFC 9457 problem details; `errors` only for VALIDATION_FAILED." });

/** The text/plain answer of every `…/count` endpoint. */
export const countResponse = {
  200: {
    description: "The number, as decimal text",
    content: { "text/plain": { schema: z.string().openapi({ example: "42" }) } },
  },
} as const;

/**
 * The error responses a route can give, grouped by status, so the OpenAPI document lists every
 * error a client can get.
 */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = statusOf(code);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<
    number,
    { description: string; content: Record<string, { schema: typeof ProblemSchema; example: unknown }> }
  > = {};
  for (const [status, group] of byStatus) {
    const first = group[0]!;
    responses[status] = {
      description: group.map((code) => `${code}: ${titleOf(code)}`).join("; "),
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: ProblemSchema,
          example: {
            type: `urn:problem:${first.toLowerCase().replaceAll("_", "-")}`,
            title: titleOf(first),
            status,
            detail: `${titleOf(first)}.`,
            code: first,
            instance: "/",
          },
        },
      },
    };
  }
  return responses;
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

/** Trimmed strings, as API.md asks of every request body. */
export const trimmed = (max: number, min = 0) => z.string().trim().min(min).max(max);

/** An optional trimmed string; empty means absent (stored as null). */
export const optionalText = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((value) => (value ? value : null));
