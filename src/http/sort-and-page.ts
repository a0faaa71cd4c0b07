// List conventions: Spring-style `sort`, 0-based `page` with `size`,
// `X-Total-Count` and an RFC 8288 `Link` header.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ListWindow, SortOrder } from "../lib/list-window";
import { requestTargetOf } from "../lib/request-target";
import { baseUrlOf, type PageInfo } from "./hal";
import type { AppBindings } from "./types";

export interface Paging {
  page: number;
  size: number;
}

/** The query of a list endpoint whose sortable fields are `fields`. */
export function listQuery<const F extends string>(fields: readonly F[], defaultOrder = "id ascending") {
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
    sort: sortParam(fields, defaultOrder),
  });
}

function sortParam<F extends string>(fields: readonly F[], defaultOrder: string) {
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
    .transform((items) => items.map((item) => parseSortItem<F>(item)))
    .optional()
    .openapi({
      param: { name: "sort", in: "query", style: "form", explode: true },
      description: `\`field\` or \`field,asc|desc\`, repeatable. Fields: ${fields.join(", ")}. Default: ${defaultOrder}.`,
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

/** One validated `field` or `field,direction` (the pattern above admitted only `fields`). */
function parseSortItem<F extends string>(item: string): SortOrder<F> {
  const [field, direction = "asc"] = item.split(",");
  return { field: field as F, direction: direction.toLowerCase() === "desc" ? "desc" : "asc" };
}

export function pagingOf(query: {
  page?: number | undefined;
  size?: number | undefined;
}): Paging | undefined {
  if (query.size === undefined && query.page === undefined) return undefined;
  return { page: query.page ?? 0, size: query.size ?? 20 };
}

/** The rows `query` asks for. */
export function listWindowOf<F extends string>(
  query: { sort?: SortOrder<F>[] | undefined },
  paging: Paging | undefined,
): ListWindow<F> {
  const sort = query.sort ?? [];
  return paging ? { sort, limit: paging.size, offset: paging.page * paging.size } : { sort };
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

export function pageInfo(total: number, paging: Paging): PageInfo {
  return {
    size: paging.size,
    number: paging.page,
    totalElements: total,
    totalPages: Math.ceil(total / paging.size),
  };
}
