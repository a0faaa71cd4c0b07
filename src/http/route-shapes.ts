// The route shapes that carry a list, count or download convention, so that every route of the
// shape keeps it:
// a list (sort, page, the list headers, HAL rel), a count (the bare number as text) and a file
// download (ranges, conditional requests, the download headers and errors). Every other route is
// a plain defineRoute call in its module.
import type { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../lib/problems";
import { LIST_MIN_READ_BYTES, LIST_READ_WINDOW_MS, LIST_SLOT_WAIT_MS } from "../lib/stream-limits";
import type { AccessLevel } from "./access";
import { defineRoute } from "./define-route";
import { downloadErrors, downloadResponses, RangeHeaders } from "./download-docs";
import type { ResourceList } from "./hal";
import { countContent, listContent } from "./respond";
import { listQuery } from "./sort-and-page";

interface OperationNames<P extends string> {
  path: P;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Errors beyond those of the access level, the request and the shape (e.g. NOT_FOUND for a parent). */
  errors?: readonly ErrorCode[];
}

/** A request with the part `Key` (a parent's `params`, an optional `query`) when it is given. */
type WithPart<Key extends string, Part, Rest> = [Part] extends [undefined]
  ? Rest
  : Rest & { [K in Key]: Exclude<Part, undefined> };

/**
 * `rest` plus `part` under `key` when given. The conditional type above says the same as this
 * branch; TypeScript does not narrow a generic by a runtime check, so it is asserted here, once.
 */
function withPart<const Key extends string, Part, Rest extends object>(
  key: Key,
  part: Part,
  rest: Rest,
): WithPart<Key, Part, Rest> {
  return (part ? { ...rest, [key]: part } : rest) as WithPart<Key, Part, Rest>;
}

/** What every whole list may answer instead of its rows (README "What is there", Lists and streams). */
export const WHOLE_LIST_RULES = `A whole list (no page or size) waits at most ${LIST_SLOT_WAIT_MS / 1000} s for a free stream slot, else 503 with Retry-After; a caller streams one whole list at a time (a second while the first is being sent → 429 with Retry-After); a client that reads less than ${LIST_MIN_READ_BYTES / 1024} KiB in ${LIST_READ_WINDOW_MS / 1000} s is cut off.`;

/** A GET of a sortable, pageable list; `params` for a list under a parent (`/book/{id}/…`). */
export function listRoute<
  const L extends AccessLevel,
  const P extends string,
  S extends z.ZodObject,
  H extends z.ZodObject,
  const F extends string,
  Params extends z.ZodObject | undefined = undefined,
  Filters extends z.ZodRawShape = Record<never, never>,
>(
  level: L,
  spec: OperationNames<P> & {
    list: ResourceList<S, H>;
    sortFields: readonly F[];
    params?: Params;
    /** Query parameters that narrow the list, beside sort and paging (documented each). */
    filters?: Filters;
    /** The order without `sort`, for the document (default "id ascending"). */
    defaultOrder?: string;
    /** What the 200 holds, e.g. "The books". */
    returns: string;
  },
) {
  const {
    list,
    sortFields,
    params,
    returns,
    description,
    errors = [],
    filters,
    defaultOrder,
    ...names
  } = spec;
  const query = listQuery(sortFields, defaultOrder).extend((filters ?? {}) as Filters);
  return defineRoute(level, {
    ...names,
    method: "get",
    description: [description, `HAL rel \`${list.rel}\`.`, WHOLE_LIST_RULES].filter(Boolean).join(" "),
    // A whole list streamed while its caller streams another is 429 (db/list-snapshot.ts).
    errors: ["TOO_MANY_REQUESTS", ...errors],
    request: withPart("params", params, { query }),
    responses: { 200: listContent(list, returns) },
  });
}

/** A GET `…/count` answering the bare number; `params` for a count under a parent. */
export function countRoute<
  const L extends AccessLevel,
  const P extends string,
  Params extends z.ZodObject | undefined = undefined,
  Query extends z.ZodObject | undefined = undefined,
>(level: L, spec: OperationNames<P> & { params?: Params; query?: Query }) {
  const { params, query, ...names } = spec;
  return defineRoute(level, {
    ...names,
    method: "get",
    request: withPart("params", params, withPart("query", query, {})),
    responses: { 200: countContent },
  });
}

/**
 * A GET of a file (`contentType`, described by `returns`) with ranges and conditional requests;
 * `params` for a file by id, `query` when it takes one.
 */
export function downloadRoute<
  const L extends AccessLevel,
  const P extends string,
  Params extends z.ZodObject | undefined = undefined,
  Query extends z.ZodObject | undefined = undefined,
>(
  level: L,
  spec: OperationNames<P> & { params?: Params; query?: Query; contentType: string; returns: string },
) {
  const { params, query, contentType, returns, errors = [], ...names } = spec;
  return defineRoute(level, {
    ...names,
    method: "get",
    request: withPart("params", params, withPart("query", query, { headers: RangeHeaders })),
    errors: [...downloadErrors, ...errors],
    responses: downloadResponses(contentType, returns),
  });
}
