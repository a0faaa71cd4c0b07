// The shapes most operations share — a list, a count, one resource by id — as route definitions,
// so each route module says only what differs (path, names, resource, sort fields, errors).
import type { z } from "@hono/zod-openapi";
import type { AccessLevel } from "../auth/access";
import { defineRoute } from "./define-route";
import type { ResourceList, Resource } from "./hal";
import { IdParam } from "./openapi";
import type { ErrorCode } from "./problems";
import { countContent, listContent, resourceContent } from "./respond";
import { listQuery } from "./sort-and-page";

interface OperationNames<P extends string> {
  path: P;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Errors beyond those of the access level and the request (e.g. NOT_FOUND for a parent). */
  errors?: readonly ErrorCode[];
}

/** A GET of a sortable, pageable list; `params` for a list under a parent (`/book/{id}/…`). */
export function listRoute<
  const L extends AccessLevel,
  const P extends string,
  S extends z.ZodObject,
  H extends z.ZodObject,
  const F extends string,
  Params extends z.ZodObject = typeof IdParam,
>(
  level: L,
  spec: OperationNames<P> & {
    list: ResourceList<S, H>;
    sortFields: readonly F[];
    params?: Params;
    /** What the 200 holds, e.g. "The books". */
    returns: string;
  },
) {
  const { list, sortFields, params, returns, description, ...names } = spec;
  const query = listQuery(sortFields);
  return defineRoute(level, {
    ...names,
    method: "get",
    description: [description, `HAL rel \`${list.rel}\`.`].filter(Boolean).join(" "),
    request: params ? { query, params } : { query },
    responses: { 200: listContent(list, returns) },
  });
}

/** A GET `…/count` answering the bare number; `params` for a count under a parent. */
export function countRoute<const L extends AccessLevel, const P extends string, Params extends z.ZodObject>(
  level: L,
  spec: OperationNames<P> & { params?: Params },
) {
  const { params, ...names } = spec;
  return defineRoute(level, {
    ...names,
    method: "get",
    ...(params ? { request: { params } } : {}),
    responses: { 200: countContent },
  });
}

/** A GET of one resource by its `{id}`. */
export function getRoute<const L extends AccessLevel, const P extends string, S extends z.ZodObject, H extends z.ZodObject>(
  level: L,
  spec: OperationNames<P> & { resource: Resource<S, H>; returns: string },
) {
  const { resource, returns, errors = [], ...names } = spec;
  return defineRoute(level, {
    ...names,
    method: "get",
    request: { params: IdParam },
    errors: ["NOT_FOUND", ...errors],
    responses: { 200: resourceContent(resource, returns) },
  });
}
