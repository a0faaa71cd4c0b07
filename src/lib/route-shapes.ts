// The shapes most operations share — a list, a count, one resource by id — as route definitions,
// so each route module says only what differs (path, names, resource, sort fields, errors).
import type { z } from "@hono/zod-openapi";
import type { AccessLevel } from "../auth/access";
import { defineRoute } from "./define-route";
import type { Resource, ResourceList } from "./hal";
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

/** The request of a list or count: a parent's path parameters, when there is a parent. */
type WithParams<Params extends z.ZodObject | undefined, Rest> = [Params] extends [undefined]
  ? Rest
  : Rest & { params: Exclude<Params, undefined> };

/**
 * `rest` plus `params` when given. The conditional type above says the same as this branch;
 * TypeScript does not narrow a generic by a runtime check, so it is asserted here, once.
 */
function withParams<Params extends z.ZodObject | undefined, Rest extends object>(
  params: Params,
  rest: Rest,
): WithParams<Params, Rest> {
  return (params ? { ...rest, params } : rest) as WithParams<Params, Rest>;
}

/** A GET of a sortable, pageable list; `params` for a list under a parent (`/book/{id}/…`). */
export function listRoute<
  const L extends AccessLevel,
  const P extends string,
  S extends z.ZodObject,
  H extends z.ZodObject,
  const F extends string,
  Params extends z.ZodObject | undefined = undefined,
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
    request: withParams(params, { query }),
    responses: { 200: listContent(list, returns) },
  });
}

/** A GET `…/count` answering the bare number; `params` for a count under a parent. */
export function countRoute<
  const L extends AccessLevel,
  const P extends string,
  Params extends z.ZodObject | undefined = undefined,
>(level: L, spec: OperationNames<P> & { params?: Params }) {
  const { params, ...names } = spec;
  return defineRoute(level, {
    ...names,
    method: "get",
    request: withParams(params, {}),
    responses: { 200: countContent },
  });
}

/** A GET of one resource by its `{id}`. */
export function getRoute<
  const L extends AccessLevel,
  const P extends string,
  S extends z.ZodObject,
  H extends z.ZodObject,
>(level: L, spec: OperationNames<P> & { resource: Resource<S, H>; returns: string }) {
  const { resource, returns, errors = [], ...names } = spec;
  return defineRoute(level, {
    ...names,
    method: "get",
    request: { params: IdParam },
    errors: ["NOT_FOUND", ...errors],
    responses: { 200: resourceContent(resource, returns) },
  });
}
