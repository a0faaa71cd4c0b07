// The shapes most operations share — a list, a count, one resource by id (read, replaced, changed,
// deleted, its file uploaded), a new resource, a file download — as route definitions, so each
// route module says only what differs (path, names, resource, sort fields, errors).
import type { z } from "@hono/zod-openapi";
import type { ErrorCode } from "../lib/problems";
import type { AccessLevel } from "./access";
import { defineRoute } from "./define-route";
import { downloadErrors, downloadResponses, RangeHeaders, uploadErrors } from "./download-docs";
import type { Resource, ResourceList } from "./hal";
import { fileUploadBody, IdParam, jsonBody } from "./openapi";
import { countContent, listContent, resourceContent } from "./respond";
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

/** The resource an operation answers with, and what its response says of it, e.g. "The book". */
interface Answers<S extends z.ZodObject, H extends z.ZodObject> {
  resource: Resource<S, H>;
  returns: string;
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
    request: withPart("params", params, { query }),
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
    request: withPart("params", params, {}),
    responses: { 200: countContent },
  });
}

/**
 * An operation on one resource by its `{id}` (404 when there is none), answering that resource
 * with 200; `request` holds the parts beyond the id.
 */
function resourceByIdRoute<
  const L extends AccessLevel,
  const P extends string,
  const M extends "get" | "put" | "post" | "delete",
  const R extends object,
  S extends z.ZodObject,
  H extends z.ZodObject,
>(level: L, method: M, request: R, spec: OperationNames<P> & Answers<S, H>) {
  const { resource, returns, errors = [], ...names } = spec;
  return defineRoute(level, {
    ...names,
    method,
    request: { params: IdParam, ...request },
    errors: ["NOT_FOUND", ...errors],
    responses: { 200: resourceContent(resource, returns) },
  });
}

/** A by-id route of `method` without a body: it reads or deletes the resource it answers with. */
function bodilessRoute<const M extends "get" | "delete">(method: M) {
  return <const L extends AccessLevel, const P extends string, S extends z.ZodObject, H extends z.ZodObject>(
    level: L,
    spec: OperationNames<P> & Answers<S, H>,
  ) => resourceByIdRoute(level, method, {}, spec);
}

/** A GET of one resource by its `{id}`. */
export const getRoute = bodilessRoute("get");

/** A DELETE of one resource by its `{id}`, answering the resource as it was. */
export const deleteRoute = bodilessRoute("delete");

/** A by-id route of `method` with the JSON body `input`; `query` when it takes one. */
function jsonBodyRoute<const M extends "put" | "post">(method: M) {
  return <
    const L extends AccessLevel,
    const P extends string,
    S extends z.ZodObject,
    H extends z.ZodObject,
    I extends z.ZodType,
    Query extends z.ZodObject | undefined = undefined,
  >(
    level: L,
    spec: OperationNames<P> & Answers<S, H> & { input: I; query?: Query },
  ) => {
    const { input, query, ...rest } = spec;
    return resourceByIdRoute(level, method, withPart("query", query, { body: jsonBody(input) }), rest);
  };
}

/** A PUT of a resource's fields by its `{id}`. */
export const replaceRoute = jsonBodyRoute("put");

/** A POST to an action of one resource (`/…/{id}/en-disable`), answering the resource. */
export const actionRoute = jsonBodyRoute("post");

/**
 * A multipart POST of a resource's file (part `file`, described by `file`), answering the
 * resource with it; the handler streams and checks the body. `query` when it takes one.
 */
export function uploadRoute<
  const L extends AccessLevel,
  const P extends string,
  S extends z.ZodObject,
  H extends z.ZodObject,
  Query extends z.ZodObject | undefined = undefined,
>(level: L, spec: OperationNames<P> & Answers<S, H> & { file: string; query?: Query }) {
  const { file, query, errors = [], ...rest } = spec;
  const request = withPart("query", query, { body: fileUploadBody(file) });
  return resourceByIdRoute(level, "post", request, { ...rest, errors: [...uploadErrors, ...errors] });
}

/** The Location header of a 201, e.g. "URL of the new book". */
export function locationHeader(description: string) {
  return { Location: { description, schema: { type: "string" as const } } };
}

/** A POST of the JSON body `input` making a new resource: 201 with it, and its URL in Location. */
export function creationRoute<
  const L extends AccessLevel,
  const P extends string,
  S extends z.ZodObject,
  H extends z.ZodObject,
  I extends z.ZodType,
>(level: L, spec: OperationNames<P> & Answers<S, H> & { input: I; location: string }) {
  const { input, resource, returns, location, ...names } = spec;
  return defineRoute(level, {
    ...names,
    method: "post",
    request: { body: jsonBody(input) },
    responses: { 201: { ...resourceContent(resource, returns), headers: locationHeader(location) } },
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
