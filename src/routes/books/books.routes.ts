import { IdParam } from "../../http/openapi";
import * as shapes from "../../http/route-shapes";
import { bookSortFields } from "../../repositories/books";
import { BookInput, BookList, BookResource } from "./books.schemas";

const tags = ["Book"];

export const listBooks = shapes.listRoute("user", {
  path: "/book",
  operationId: "listBooks",
  summary: "List books",
  description: "Whole list without `page`/`size`; `X-Total-Count` always, `Link` when paged.",
  tags,
  list: BookList,
  sortFields: bookSortFields,
  returns: "The books",
});

export const countBooks = shapes.countRoute("user", {
  path: "/book/count",
  operationId: "countBooks",
  summary: "Count books",
  tags,
});

export const getBook = shapes.getRoute("user", {
  path: "/book/{id}",
  operationId: "getBook",
  summary: "Get a book",
  tags,
  resource: BookResource,
  returns: "The book",
});

export const createBook = shapes.creationRoute("admin", {
  path: "/book",
  operationId: "createBook",
  summary: "Create a book",
  tags,
  input: BookInput,
  resource: BookResource,
  returns: "The new book",
  location: "URL of the new book",
});

export const updateBook = shapes.replaceRoute("admin", {
  path: "/book/{id}",
  operationId: "updateBook",
  summary: "Replace a book's fields",
  description: "Replaces every writable field; a field left out becomes null.",
  tags,
  input: BookInput,
  resource: BookResource,
  returns: "The updated book",
});

export const deleteBook = shapes.deleteRoute("admin", {
  path: "/book/{id}",
  operationId: "deleteBook",
  summary: "Delete a book",
  description:
    "Deletes its versions, QR codes and files. Refused with 409 while readers hold activations of it.",
  tags,
  errors: ["CONFLICT"],
  resource: BookResource,
  returns: "The deleted book",
});

export const getBookCover = shapes.downloadRoute("public", {
  path: "/book/{id}/cover",
  operationId: "getBookCover",
  summary: "Download a book's cover",
  description: "The cover PNG; 404 if the book or its cover is missing.",
  tags,
  params: IdParam,
  contentType: "image/png",
  returns: "The cover image",
});

export const uploadBookCover = shapes.uploadRoute("admin", {
  path: "/book/{id}/cover",
  operationId: "uploadBookCover",
  summary: "Upload a book's cover",
  description:
    "Multipart part `file`: a PNG (checked by content, not by name) of at most 10,000 × 10,000 pixels (415 beyond), at most MAX_COVER_BYTES. Replaces an earlier cover.",
  tags,
  file: "The cover PNG",
  resource: BookResource,
  returns: "The book with its new cover",
});
