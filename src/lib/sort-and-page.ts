// List conventions of API.md §1: Spring-style `sort`, 0-based `page` with `size`,
// `X-Total-Count` and an RFC 8288 `Link` header.
import { z } from "@hono/zod-openapi";
import { type AnyColumn, asc, desc, type SQL } from "drizzle-orm";
import type { Context } from "hono";
import { baseUrlOf, HAL_CONTENT_TYPE, halList, wantsHal } from "./hal";
import { requestTargetOf } from "./request-target";
import type { AppBindings } from "./types";

export interface SortOrder {
  field: string;
  direction: "asc" | "desc";
}

export interface Paging {
  page: number;
  size: number;
}

/** The query of a list endpoint whose sortable fields are `fields`. */
export function listQuery(fields: readonly string[]) {
  return z.object({
    page: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .optional()
      .openapi({
        param: { name: "page", in: "query" },
        description: "0-based page number (default 0 when `size` is given)",
        example: 0,
      }),
    size: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .openapi({ param: { name: "size", in: "query" }, description: "Page size, 1–1000", example: 20 }),
    sort: sortParam(fields),
  });
}

function sortParam(fields: readonly string[]) {
  // No regex flags: the pattern goes into the OpenAPI document as it is.
  const pattern = new RegExp(`^(${fields.join("|")})(,(asc|desc|ASC|DESC))?$`);
  // One `sort` arrives as a string, several as an array.
  return z
    .preprocess(
      (value) => (typeof value === "string" ? [value] : value),
      z.array(
        z
          .string()
          .regex(pattern, `sort must be one of ${fields.join(", ")}, optionally followed by ,asc or ,desc`),
      ),
    )
    .optional()
    .openapi({
      param: { name: "sort", in: "query", style: "form", explode: true },
      description: `\`field\` or \`field,asc|desc\`, repeatable. Fields: ${fields.join(", ")}. Default: id ascending.`,
      example: [`${fields[0] ?? "id"},asc`],
    });
}

/** The headers every list answers with, for the OpenAPI document. */
export const listHeaders = {
  "X-Total-Count": { description: "Number of items in the whole list", schema: { type: "integer" as const } },
  Link: {
    description: "RFC 8288 first/prev/next/last links of a paged list",
    schema: { type: "string" as const },
  },
};

export function parseSort(sort: readonly string[] | undefined): SortOrder[] {
  return (sort ?? []).map((item) => {
    const [field = "id", direction = "asc"] = item.split(",");
    return { field, direction: direction.toLowerCase() === "desc" ? "desc" : "asc" };
  });
}

/**
 * ORDER BY terms for `sort`, with `tieBreaker` (the id) last so that pages never overlap.
 * Field names were validated by the query schema; an unknown one here is a programming error.
 */
export function orderByOf(
  sort: readonly string[] | undefined,
  columns: Record<string, AnyColumn>,
  tieBreaker: AnyColumn,
): SQL[] {
  const terms = parseSort(sort).map(({ field, direction }) => {
    const column = columns[field];
    if (!column) throw new Error(`sort field ${field} has no column`);
    return direction === "desc" ? desc(column) : asc(column);
  });
  terms.push(asc(tieBreaker));
  return terms;
}

export function pagingOf(query: {
  page?: number | undefined;
  size?: number | undefined;
}): Paging | undefined {
  if (query.size === undefined && query.page === undefined) return undefined;
  return { page: query.page ?? 0, size: query.size ?? 20 };
}

export function limitOffset(paging: Paging | undefined): { limit: number; offset: number } | undefined {
  return paging ? { limit: paging.size, offset: paging.page * paging.size } : undefined;
}

/** Sets X-Total-Count and, for a paged list, the Link header. */
export function setListHeaders(c: Context<AppBindings>, total: number, paging: Paging | undefined): void {
  c.header("X-Total-Count", String(total));
  if (!paging) return;
  const lastPage = Math.max(0, Math.ceil(total / paging.size) - 1);
  const { pathname, search } = requestTargetOf(c.req.url);
  const base = baseUrlOf(c);
  const link = (page: number, rel: string) => {
    const query = new URLSearchParams(search);
    query.set("page", String(page));
    query.set("size", String(paging.size));
    return `<${base}${pathname}?${query}>; rel="${rel}"`;
  };
  const links = [link(0, "first")];
  if (paging.page > 0) links.push(link(Math.min(paging.page - 1, lastPage), "prev"));
  if (paging.page < lastPage) links.push(link(paging.page + 1, "next"));
  links.push(link(lastPage, "last"));
  c.header("Link", links.join(", "));
}

export function pageInfo(total: number, paging: Paging) {
  return {
    size: paging.size,
    number: paging.page,
    totalElements: total,
    totalPages: Math.ceil(total / paging.size),
  };
}

/**
 * Answers a list: headers of API.md §1, then a JSON array, or a HAL collection under `rel`
 * with `links(item, base)` on each item when the client asked for HAL.
 */
export function respondList<T extends object>(
  c: Context<AppBindings>,
  options: {
    rel: string;
    items: T[];
    total: number;
    paging: Paging | undefined;
    links: (item: T, base: string) => Record<string, { href: string }>;
    /** 201 for a list that a POST made (a QR code batch). */
    status?: 200 | 201;
  },
): Response {
  const status = options.status ?? 200;
  setListHeaders(c, options.total, options.paging);
  if (!wantsHal(c)) return c.json(options.items, status);
  const base = baseUrlOf(c);
  const { pathname, search } = requestTargetOf(c.req.url);
  const body = halList(
    options.rel,
    options.items.map((item) => ({ ...item, _links: options.links(item, base) })),
    `${base}${pathname}${search}`,
    options.paging ? pageInfo(options.total, options.paging) : undefined,
  );
  return c.body(JSON.stringify(body), status, { "Content-Type": HAL_CONTENT_TYPE });
}
