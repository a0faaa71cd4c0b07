// How a resource, a list or a count is declared in a route and answered by its handler: the
// declaration and the answer are made from the same Resource, and the answer's type is the
// route's, so the compiler holds a handler to what its route documents.
import { z } from "@hono/zod-openapi";
import type { Context, TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import { throttleBucketOf } from "../lib/ip-address";
import type { ListRead, ListStream, ListWindow, RowStream, SortOrder } from "../lib/list-window";
import { describeError } from "../lib/logger";
import { AppError } from "../lib/problems";
import { requestTargetOf } from "../lib/request-target";
import { LIST_RETRY_AFTER_SECONDS, ListStreamRefused } from "../lib/stream-limits";
import { clientAddressOf } from "./client-address";
import { baseUrlOf, HAL_CONTENT_TYPE, type Resource, type ResourceList, wantsHal } from "./hal";
import { listBody, markStreamedList } from "./list-stream";
import { JSON_CONTENT_TYPE } from "./openapi";
import { listHeaders, listWindowOf, type Paging, pageInfo, pagingOf, setListHeaders } from "./sort-and-page";
import type { AppBindings } from "./types";

/**
 * The media types, `; charset=UTF-8` included: given to `c.json` here, the response is made
 * with them, not relabelled by the request frame afterwards.
 */
const JSON_BODY = { "Content-Type": `${JSON_CONTENT_TYPE}; charset=UTF-8` };
const HAL_BODY = { "Content-Type": `${HAL_CONTENT_TYPE}; charset=UTF-8` };

/**
 * The typed response a helper's parameters guarantee. Hono types `c.json` by its argument, which
 * TypeScript cannot relate to a generic schema's output inside a generic helper; the helpers'
 * signatures carry the check to every handler instead, and this is the one place it is asserted.
 */
function typed<R extends TypedResponse<unknown, 200 | 201, "json">>(response: Response): R {
  return response as unknown as R;
}

/** A response declaring both forms of a resource. */
export function resourceContent<S extends z.ZodObject, H extends z.ZodObject>(
  resource: Resource<S, H>,
  description: string,
) {
  return {
    description,
    content: {
      [JSON_CONTENT_TYPE]: { schema: resource.schema },
      [HAL_CONTENT_TYPE]: { schema: resource.hal },
    },
  };
}

/** The Location header of a 201 (set by respondCreated), e.g. "URL of the new book". */
export function locationHeader(description: string) {
  return { Location: { description, schema: { type: "string" as const } } };
}

/** A response declaring both forms of a list, with the list headers (X-Total-Count, Link). */
export function listContent<S extends z.ZodObject, H extends z.ZodObject>(
  list: ResourceList<S, H>,
  description: string,
) {
  return {
    description,
    headers: listHeaders,
    content: {
      [JSON_CONTENT_TYPE]: { schema: list.schema },
      [HAL_CONTENT_TYPE]: { schema: list.hal },
    },
  };
}

/** The text/plain answer of every `…/count` endpoint. */
export const countContent = {
  description: "The number, as decimal text",
  content: { "text/plain": { schema: z.string().openapi({ example: "42" }) } },
};

type ResourceResponse<S extends z.ZodObject, H extends z.ZodObject, Status extends 200 | 201> = TypedResponse<
  JSONParsed<z.output<S> | z.output<H>>,
  Status,
  "json"
>;

/** Answers a resource as JSON, or as HAL when the client asked for it (200). */
export function respondResource<S extends z.ZodObject, H extends z.ZodObject>(
  c: Context<AppBindings>,
  resource: Resource<S, H>,
  item: z.output<S>,
): ResourceResponse<S, H, 200> {
  return answerResource(c, resource, item, 200);
}

/**
 * Answers a resource a request made (201), found from now on where its `self` link points:
 * Location is that path, root-relative whatever PUBLIC_URL says (a client resolves it against
 * the URL it called).
 */
export function respondCreated<S extends z.ZodObject, H extends z.ZodObject>(
  c: Context<AppBindings>,
  resource: Resource<S, H>,
  item: z.output<S>,
): ResourceResponse<S, H, 201> {
  c.header("Location", resource.selfPath(item));
  return answerResource(c, resource, item, 201);
}

function answerResource<S extends z.ZodObject, H extends z.ZodObject, Status extends 200 | 201>(
  c: Context<AppBindings>,
  resource: Resource<S, H>,
  item: z.output<S>,
  status: Status,
): ResourceResponse<S, H, Status> {
  if (!wantsHal(c)) return typed(c.json(item, status, JSON_BODY));
  return typed(c.json(resource.toHal(item, baseUrlOf(c)), status, HAL_BODY));
}

type ListResponse<S extends z.ZodObject, H extends z.ZodObject, Status extends 200 | 201> = TypedResponse<
  JSONParsed<z.output<S>[] | z.output<ResourceList<S, H>["hal"]>>,
  Status,
  "json"
>;

/**
 * Answers a list: X-Total-Count and (when paged) Link, then a JSON array, or a HAL collection under
 * the list's rel when the client asked for HAL. `paging` is undefined for a whole list. A list the
 * service streams (a whole list longer than a chunk) is written chunk by chunk (list-stream.ts) in
 * the same bytes.
 */
export async function respondList<
  S extends z.ZodObject,
  H extends z.ZodObject,
  Row,
  Status extends 200 | 201 = 200,
>(
  c: Context<AppBindings>,
  list: ResourceList<S, H>,
  listRead: ListRead<Row>,
  toItem: (row: Row) => z.output<S>,
  paging: Paging | undefined,
  status: Status,
): Promise<ListResponse<S, H, Status>> {
  const hal = wantsHal(c);
  const base = hal ? baseUrlOf(c) : "";
  const toJson: (row: Row) => unknown = hal ? (row) => list.item.toHal(toItem(row), base) : toItem;
  if (isStream(listRead)) {
    const read = await openStream(c, listRead);
    setListHeaders(c, read.total, paging);
    const selfLink = JSON.stringify({ self: halSelf(c, base) });
    const [opening, closing] = hal
      ? [`{"_embedded":{${JSON.stringify(list.rel)}:[`, `]},"_links":${selfLink}}`]
      : ["[", "]"];
    return typed<ListResponse<S, H, Status>>(
      await respondStream(c, read, opening, closing, toJson, status, hal ? HAL_BODY : JSON_BODY),
    );
  }
  const read = listRead;
  setListHeaders(c, read.total, paging);
  const items = read.rows.map(toJson);
  if (!hal) return typed<ListResponse<S, H, Status>>(c.json(items, status, JSON_BODY));
  const body = {
    _embedded: { [list.rel]: items },
    _links: { self: halSelf(c, base) },
    ...(paging ? { page: pageInfo(read.total, paging) } : {}),
  };
  return typed<ListResponse<S, H, Status>>(c.json(body, status, HAL_BODY));
}

/**
 * Answers a resource one of whose fields is a list of `nested` resources (`field`, given empty by
 * `itemOf`, which is told the list's size): at once, or, when the service streams the list,
 * written as the resource's JSON (or HAL) with that list's items streamed in its place.
 */
export async function respondResourceWithList<
  S extends z.ZodObject,
  H extends z.ZodObject,
  Row,
  NS extends z.ZodObject,
  NH extends z.ZodObject,
>(
  c: Context<AppBindings>,
  resource: Resource<S, H>,
  itemOf: (total: number) => z.output<S>,
  field: keyof z.output<S> & string,
  listRead: ListRead<Row>,
  nested: Resource<NS, NH>,
  toItem: (row: Row) => z.output<NS>,
): Promise<ResourceResponse<S, H, 200>> {
  if (!isStream(listRead)) {
    return respondResource(c, resource, { ...itemOf(listRead.total), [field]: listRead.rows.map(toItem) });
  }
  const read = await openStream(c, listRead);
  const item = itemOf(read.total);
  const hal = wantsHal(c);
  const base = hal ? baseUrlOf(c) : "";
  const shell = JSON.stringify(
    hal ? resource.toHal({ ...item, [field]: [] }, base) : { ...item, [field]: [] },
  );
  // The empty list's place in the resource's own JSON: a key in quotes, so no string value (whose
  // quotes JSON escapes) can hold it; found exactly once, or this is no place to stream into.
  const marker = `${JSON.stringify(field)}:[]`;
  const at = shell.indexOf(marker);
  if (at < 0 || shell.lastIndexOf(marker) !== at) {
    await read.close();
    throw new Error(`no single place for "${field}" to stream into`);
  }
  const opening = shell.slice(0, at + marker.length - 1);
  const closing = shell.slice(at + marker.length - 1);
  const toJson: (row: Row) => unknown = hal ? (row) => nested.toHal(toItem(row), base) : toItem;
  return typed<ResourceResponse<S, H, 200>>(
    await respondStream(c, read, opening, closing, toJson, 200, hal ? HAL_BODY : JSON_BODY),
  );
}

function isStream<Row>(read: ListRead<Row>): read is ListStream<Row> {
  return "open" in read;
}

const retryAfter = { "Retry-After": String(LIST_RETRY_AFTER_SECONDS) };

/** Opens a whole list's stream for its caller: 429 while they stream another, 503 when no slot is free in time. */
async function openStream<Row>(c: Context<AppBindings>, list: ListStream<Row>): Promise<RowStream<Row>> {
  try {
    return await list.open(streamHolderOf(c));
  } catch (error) {
    if (!(error instanceof ListStreamRefused)) throw error;
    throw error.reason === "busy-holder"
      ? new AppError(
          "TOO_MANY_REQUESTS",
          "Another whole list of yours is still being sent; read it to its end first, or ask for a page.",
          { headers: retryAfter },
        )
      : new AppError(
          "SERVICE_UNAVAILABLE",
          "Too many whole lists are being sent right now; try again shortly, or ask for a page.",
          { headers: retryAfter },
        );
  }
}

/**
 * Who holds a whole list's stream, one at a time each: the user, by uuid, whoever they are (an
 * admin too); a caller without credentials, by its address (an IPv6 client by its /64).
 */
function streamHolderOf(c: Context<AppBindings>): string {
  const principal = c.get("principal") as AppBindings["Variables"]["principal"] | undefined;
  return principal ? `user:${principal.userUuid}` : `address:${throttleBucketOf(clientAddressOf(c))}`;
}

function halSelf(c: Context<AppBindings>, base: string) {
  const { pathname, search } = requestTargetOf(c.req.url);
  return { href: `${base}${pathname}${search}` };
}

/**
 * A streamed body (list-stream.ts). A HEAD request gets the headers only: its body would never be
 * read, so the stream's snapshot is given back at once.
 */
async function respondStream<Row>(
  c: Context<AppBindings>,
  read: RowStream<Row>,
  opening: string,
  closing: string,
  toJson: (row: Row) => unknown,
  status: 200 | 201,
  headers: Record<string, string>,
): Promise<Response> {
  if (c.req.method === "HEAD") {
    await read.close();
    return c.body(null, status, headers);
  }
  const { logger } = c.get("deps");
  const requestId = c.get("requestId");
  const body = listBody(
    read,
    opening,
    closing,
    toJson,
    (error) =>
      // describeError keeps the innermost cause: a query wrapper's message (the SQL) stays out.
      logger.error("list stream failed", { requestId, ...describeError(error) }),
    () => logger.warn("list stream cut: its client read too slowly", { requestId }),
  );
  return markStreamedList(c.body(body, status, headers));
}

/** The query of every list endpoint, as listQuery() validated it. */
export interface ListQuery<F extends string> {
  page?: number | undefined;
  size?: number | undefined;
  sort?: SortOrder<F>[] | undefined;
}

/**
 * What a list query asks for: the rows to read (`window`, for the service) and, when it asks
 * for a page, which one (`paging`, for respondList's headers and HAL page).
 */
export function listRequestOf<F extends string>(
  query: ListQuery<F>,
): { window: ListWindow<F>; paging: Paging | undefined } {
  const paging = pagingOf(query);
  return { window: listWindowOf(query, paging), paging };
}

/** `…/count` answers the bare decimal number as text/plain. */
export function respondCount(c: Context<AppBindings>, n: number) {
  return c.text(String(n), 200, { "Content-Type": "text/plain;charset=UTF-8" });
}
