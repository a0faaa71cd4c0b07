// Type-level test, checked by `bun run typecheck` (never run): a handler must answer what its
// route documents. Each @ts-expect-error fails the typecheck if the line below it compiles.
import type { AppRouteHandler } from "../../src/http/types";
import type * as routes from "../../src/routes/books/books.routes";

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
