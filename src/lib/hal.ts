// HAL rendering (API.md §1): only for clients that ask for application/hal+json.
import type { Context } from "hono";
import type { AppBindings } from "./types";

export const HAL_CONTENT_TYPE = "application/hal+json";

export interface Link {
  href: string;
}
export type Links = Record<string, Link>;

export function wantsHal(c: Context): boolean {
  return (c.req.header("accept") ?? "").toLowerCase().includes(HAL_CONTENT_TYPE);
}

/**
 * Links start at PUBLIC_URL, or else they are root-relative (""): never at the request's own
 * origin, whose host is whatever the client put in its Host header (API.md §1).
 */
export function baseUrlOf(c: Context<AppBindings>): string {
  return c.get("deps").config.publicUrl ?? "";
}

export function withLinks<T extends object>(resource: T, links: Links): T & { _links: Links } {
  return { ...resource, _links: links };
}

export function halList(
  rel: string,
  items: object[],
  self: string,
  page?: { size: number; number: number; totalElements: number; totalPages: number },
) {
  return {
    _embedded: { [rel]: items },
    _links: { self: { href: self } },
    ...(page ? { page } : {}),
  };
}

/** Answers a resource as JSON, or as HAL with `links(base)` when the client asked for it. */
export function respondResource<T extends object>(
  c: Context<AppBindings>,
  resource: T,
  links: (base: string) => Links,
  status: 200 | 201 = 200,
): Response {
  if (!wantsHal(c)) return c.json(resource, status);
  const body = withLinks(resource, links(baseUrlOf(c)));
  return c.body(JSON.stringify(body), status, { "Content-Type": HAL_CONTENT_TYPE });
}
