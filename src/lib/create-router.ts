// The one place an OpenAPIHono is made: every router gets the validation hook, so no route
// falls back to the library's own error body.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { AppError, type FieldError } from "./problems";
import type { AppBindings } from "./types";

export function createRouter(): OpenAPIHono<AppBindings> {
  return new OpenAPIHono<AppBindings>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.target, result.error);
    },
  });
}

export function validationError(target: string, error: ZodError): AppError {
  // A JSON body that parsed but is not an object (an array, a string, null) is not a definition.
  if (
    target === "json" &&
    error.issues.some((issue) => issue.path.length === 0 && issue.code === "invalid_type")
  ) {
    return new AppError("INVALID_DEFINITION", "The request body must be a JSON object.");
  }
  const errors: FieldError[] = error.issues.map((issue) => ({
    path: issue.path.map(String).join(".") || target,
    message: issue.message,
  }));
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join("; ");
  return new AppError("VALIDATION_FAILED", `Invalid ${target === "json" ? "body" : target}: ${detail}`, {
    errors,
  });
}
