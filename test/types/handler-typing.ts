// Type-level test, checked by `bun run typecheck` (never run): a handler must answer what its
// route documents. Each @ts-expect-error fails the typecheck if the line below it compiles.
import { respondCreated, respondResource } from "../../src/http/respond";
import type { AppRouteHandler } from "../../src/http/types";
import { ApkResource, toApk } from "../../src/routes/apks/apks.schemas";
import type * as routes from "../../src/routes/books/books.routes";
import { BookResource, toBook } from "../../src/routes/books/books.schemas";
import * as apks from "../../src/services/apks";
import * as books from "../../src/services/books";

const book = {
  id: 7,
  title: "The Little Prince",
  author: null,
  isbn: null,
  description: null,
  language: null,
  cover: null,
  createdAt: "2026-11-21T10:04:05.123Z",
  updatedAt: "2026-11-21T10:04:05.123Z",
};

// The documented body and status compile.
export const documented: AppRouteHandler<typeof routes.getBook> = (c) => c.json(book, 200);

// @ts-expect-error a body the route does not document
export const wrongBody: AppRouteHandler<typeof routes.getBook> = (c) => c.json({ nope: 1 }, 200);

// @ts-expect-error a status the route does not document
export const wrongStatus: AppRouteHandler<typeof routes.getBook> = (c) => c.json(book, 418);

// @ts-expect-error 201 on a route that answers 200
export const createdOnGet: AppRouteHandler<typeof routes.getBook> = (c) => c.json(book, 201);

// @ts-expect-error an untyped Response on a route whose every answer has content
export const untyped: AppRouteHandler<typeof routes.getBook> = () => new Response("{}");

// @ts-expect-error a count route answers text, not JSON
export const countAsJson: AppRouteHandler<typeof routes.countBooks> = (c) => c.json(42, 200);

// @ts-expect-error a list route answers an array of books, not one
export const listOfOne: AppRouteHandler<typeof routes.listBooks> = (c) => c.json(book, 200);

// A problem body on a documented error status compiles: handlers may answer errors themselves.
export const problem: AppRouteHandler<typeof routes.getBook> = (c) =>
  c.json(
    {
      type: "urn:problem:not-found",
      title: "Not Found",
      status: 404,
      detail: "Book 7 was not found.",
      code: "NOT_FOUND",
      instance: "/book/7",
    },
    404,
  );

// Written-out handlers (params → service → respond): a mistake in reading the request is
// reported on the line that makes it; an answer the route does not document, on the handler's
// first line.

// @ts-expect-error a book route answering with an APK
export const otherResource: AppRouteHandler<typeof routes.getBook> = async (c) => {
  const { id } = c.req.valid("param");
  const apk = await apks.getApk(c.get("deps").db, id);
  return respondResource(c, ApkResource, toApk(apk));
};

// @ts-expect-error a list route answering one book
export const oneForList: AppRouteHandler<typeof routes.listBooks> = async (c) => {
  const book = await books.getBook(c.get("deps").db, 7);
  return respondResource(c, BookResource, toBook(book));
};

export const bodyOnGet: AppRouteHandler<typeof routes.getBook> = async (c) => {
  // @ts-expect-error a GET route validates no JSON body
  const fields = c.req.valid("json");
  const book = await books.getBook(c.get("deps").db, fields.id);
  return respondResource(c, BookResource, toBook(book));
};

export const wrongParam: AppRouteHandler<typeof routes.getBook> = async (c) => {
  // @ts-expect-error the path parameter is `id`
  const { bookId } = c.req.valid("param");
  const book = await books.getBook(c.get("deps").db, bookId);
  return respondResource(c, BookResource, toBook(book));
};

export const apkBodyForBook: AppRouteHandler<typeof routes.createBook> = async (c) => {
  const { db, clock } = c.get("deps");
  // @ts-expect-error the body of createBook is a book's fields, not an APK's
  const apk = await apks.createApk(db, c.req.valid("json"), clock.now());
  return respondCreated(c, BookResource, toBook(await books.getBook(db, apk.id)));
};
