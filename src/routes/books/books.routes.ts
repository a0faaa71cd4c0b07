import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../auth/access";
import { downloadResponses, RangeHeaders, uploadErrors } from "../../lib/download-docs";
import {
  countResponse,
  errorResponses,
  fileUploadBody,
  IdParam,
  jsonBody,
  jsonContent,
} from "../../lib/openapi";
import { listHeaders, listQuery } from "../../lib/sort-and-page";
import { Book, BookInput, bookSortFields } from "./books.schemas";

const tags = ["Book"];
const bodyErrors = [
  "VALIDATION_FAILED",
  "INVALID_DEFINITION",
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
] as const;

export const listBooks = defineRoute("user", {
  method: "get",
  path: "/book",
  operationId: "listBooks",
  summary: "List books",
  description:
    "Whole list without `page`/`size`; `X-Total-Count` always, `Link` when paged. HAL on `Accept: application/hal+json` (rel `books`).",
  tags,
  request: { query: listQuery(bookSortFields) },
  responses: {
    200: {
      ...jsonContent(z.array(Book), "The books"),
      headers: listHeaders,
    },
    ...errorResponses("VALIDATION_FAILED"),
  },
});

export const countBooks = defineRoute("user", {
  method: "get",
  path: "/book/count",
  operationId: "countBooks",
  summary: "Count books",
  tags,
  responses: { ...countResponse },
});

export const getBook = defineRoute("user", {
  method: "get",
  path: "/book/{id}",
  operationId: "getBook",
  summary: "Get a book",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(Book, "The book"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const createBook = defineRoute("admin", {
  method: "post",
  path: "/book",
  operationId: "createBook",
  summary: "Create a book",
  tags,
  request: { body: jsonBody(BookInput) },
  responses: {
    201: {
      ...jsonContent(Book, "The new book"),
      headers: { Location: { description: "URL of the new book", schema: { type: "string" } } },
    },
    ...errorResponses(...bodyErrors),
  },
});

export const updateBook = defineRoute("admin", {
  method: "put",
  path: "/book/{id}",
  operationId: "updateBook",
  summary: "Replace a book's fields",
  description: "Replaces every writable field; a field left out becomes null.",
  tags,
  request: { params: IdParam, body: jsonBody(BookInput) },
  responses: {
    200: jsonContent(Book, "The updated book"),
    ...errorResponses(...bodyErrors, "NOT_FOUND"),
  },
});

export const deleteBook = defineRoute("admin", {
  method: "delete",
  path: "/book/{id}",
  operationId: "deleteBook",
  summary: "Delete a book",
  description:
    "Deletes its versions, QR codes and files. Refused with 409 while readers hold activations of it.",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(Book, "The deleted book"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND", "CONFLICT"),
  },
});

export const getCover = defineRoute("public", {
  method: "get",
  path: "/book/{id}/cover",
  operationId: "getBookCover",
  summary: "Download a book's cover",
  description: "The cover PNG; 404 if the book or its cover is missing.",
  tags,
  request: { params: IdParam, headers: RangeHeaders },
  responses: downloadResponses("image/png", "The cover image"),
});

export const uploadCover = defineRoute("admin", {
  method: "post",
  path: "/book/{id}/cover",
  operationId: "uploadBookCover",
  summary: "Upload a book's cover",
  description:
    "Multipart part `file`: a PNG (checked by content, not by name), at most MAX_COVER_BYTES. Replaces an earlier cover.",
  tags,
  request: { params: IdParam, body: fileUploadBody("The cover PNG") },
  responses: { 200: jsonContent(Book, "The book with its new cover"), ...errorResponses(...uploadErrors) },
});
