// The shapes most handlers share — a list, a count, one resource by id, a create, a replace,
// an upload, a download — made from the service function that does the work, so a handler
// module says only which service answers which route. Assign each to
// `AppRouteHandler<typeof routes.x>`: the compiler then holds the handler to what its route
// validates (path parameters, query, body, sort fields) and documents (status, body).
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "../deps";
import type { ListWindow, Page } from "../lib/list-window";
import { notFound } from "../lib/problems";
import type { Inspected, UploadKind } from "../storage/upload-kinds";
import type { ReceivedUpload } from "../storage/uploads";
import { type FileToSend, sendBlob } from "./file-response";
import { receiveFile } from "./file-upload";
import type { ResourceList } from "./hal";
import { type ListQuery, respondCount, respondCreated, respondResource, respondWithList } from "./respond";
import type { AppBindings } from "./types";

type Database = Deps["db"];

/** The context of a handler that reads `Out` from its route's validated request. */
type RequestWith<Out extends object> = Context<AppBindings, string, { out: Out }>;

/** The validated path parameter `param` of a resource under a parent (`/book/{bookId}/…`). */
type ParentParam<K extends string> = { param: Record<K, number> };

/**
 * The handlers of the usual shapes for one resource, answered as `list` (a list) or as its item
 * resource (one), each service row shaped by `toItem`.
 */
export function resourceHandlers<S extends z.ZodObject, H extends z.ZodObject, Row>(
  list: ResourceList<S, H>,
  toItem: (row: Row) => z.output<S>,
) {
  const resource = list.item;
  return {
    /** A list: `load` reads the window (sort, page) the query asks for. */
    list<F extends string>(load: (db: Database, window: ListWindow<F>) => Promise<Page<Row>>) {
      return (c: RequestWith<{ query: ListQuery<F> }>) => {
        const { db } = c.get("deps");
        return respondWithList(c, list, c.req.valid("query"), (window) => load(db, window), toItem);
      };
    },

    /** A list under the parent whose id is the path parameter `param`. */
    listUnder<K extends string, F extends string>(
      param: K,
      load: (db: Database, parentId: number, window: ListWindow<F>) => Promise<Page<Row>>,
    ) {
      return (c: RequestWith<ParentParam<K> & { query: ListQuery<F> }>) => {
        const { db } = c.get("deps");
        const parentId = c.req.valid("param")[param];
        return respondWithList(c, list, c.req.valid("query"), (window) => load(db, parentId, window), toItem);
      };
    },

    /** A list of the signed-in caller's own: `load` reads it for the caller's user UUID. */
    listOfCaller<F extends string>(
      load: (db: Database, userUuid: string, window: ListWindow<F>) => Promise<Page<Row>>,
    ) {
      return (c: RequestWith<{ query: ListQuery<F> }>) => {
        const { db } = c.get("deps");
        const { userUuid } = c.get("principal");
        return respondWithList(c, list, c.req.valid("query"), (window) => load(db, userUuid, window), toItem);
      };
    },

    /** One resource by its `{id}`, as `load` finds (or removes) it. */
    byId(load: (db: Database, id: number) => Promise<Row>) {
      return async (c: RequestWith<{ param: { id: number } }>) => {
        const row = await load(c.get("deps").db, c.req.valid("param").id);
        return respondResource(c, resource, toItem(row));
      };
    },

    /** A create (201) from the JSON body; the new resource is at `${path}/${id}`. */
    create<Body>(load: (db: Database, body: Body, now: Date) => Promise<Row & { id: number }>, path: string) {
      return async (c: RequestWith<{ json: Body }>) => {
        const { db, clock } = c.get("deps");
        const row = await load(db, c.req.valid("json"), clock.now());
        return respondCreated(c, resource, toItem(row), `${path}/${row.id}`);
      };
    },

    /** A replace (PUT) of the resource `{id}` by the JSON body. */
    replace<Body>(load: (db: Database, id: number, body: Body, now: Date) => Promise<Row>) {
      return async (c: RequestWith<{ param: { id: number }; json: Body }>) => {
        const { db, clock } = c.get("deps");
        const row = await load(db, c.req.valid("param").id, c.req.valid("json"), clock.now());
        return respondResource(c, resource, toItem(row));
      };
    },

    /**
     * A file upload to the resource `{id}`: `find` answers 404 before the body is read, then the
     * file of `kind` is received and `attach` records it.
     */
    upload<K extends UploadKind>(
      kind: K,
      find: (db: Database, id: number) => Promise<unknown>,
      attach: (
        db: Database,
        id: number,
        file: ReceivedUpload<Inspected[K]>,
        now: Date,
        blobs: Deps["blobs"],
      ) => Promise<Row>,
    ) {
      return async (c: RequestWith<{ param: { id: number } }>) => {
        const deps = c.get("deps");
        const { id } = c.req.valid("param");
        await find(deps.db, id);
        const file = await receiveFile(c, kind);
        const row = await attach(deps.db, id, file, deps.clock.now(), deps.blobs);
        return respondResource(c, resource, toItem(row));
      };
    },
  };
}

/** A `…/count`: the number `load` counts. */
export function countHandler(load: (db: Database) => Promise<number>) {
  return async (c: Context<AppBindings>) => respondCount(c, await load(c.get("deps").db));
}

/** A `…/count` under the parent whose id is the path parameter `param`. */
export function countUnderHandler<K extends string>(
  param: K,
  load: (db: Database, parentId: number) => Promise<number>,
) {
  return async (c: RequestWith<ParentParam<K>>) =>
    respondCount(c, await load(c.get("deps").db, c.req.valid("param")[param]));
}

/** The file a row keeps in its file columns: all null until one is uploaded. */
export interface FileColumns {
  sha256: string | null;
  size: number | null;
  uploadedAt: Date | null;
}

/** A download of the file a row keeps; 404 naming `what` while it has none. */
export function sendStoredFile(
  c: Context<AppBindings>,
  what: string,
  file: FileColumns,
  how: Pick<FileToSend, "contentType" | "filename" | "disposition" | "cacheControl">,
): Response {
  if (!file.sha256 || !file.uploadedAt) throw notFound(what);
  return sendBlob(c.get("deps"), c.req.raw, {
    ...how,
    sha256: file.sha256,
    size: file.size ?? 0,
    lastModified: file.uploadedAt,
  });
}
