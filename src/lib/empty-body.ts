import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "./types";

/**
 * For bodies that may be left out: an empty JSON body reads as `{}` instead of failing to parse.
 * The app-wide body limit has already bounded what is read here.
 */
export const emptyBodyAsObject: MiddlewareHandler<AppBindings> = async (c, next) => {
  const text = await c.req.text();
  // Hono keeps the body promise here (its type says string); the JSON validator reads it back.
  if (text.trim() === "") (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve("{}");
  await next();
};
