import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../auth/access";
import { countResponse, errorResponses, IdParam, jsonContent } from "../../lib/openapi";
import { listHeaders, listQuery } from "../../lib/sort-and-page";
import { Activation } from "../activations/activations.schemas";
import { bookSortFields } from "../../repositories/books";
import {
  activationsOfBookSortFields,
  BookWithVersionAndActivation,
  MyBook,
  myBookSortFields,
} from "./reader.schemas";

const tags = ["Book"];

export const listMyBooks = defineRoute("user", {
  method: "get",
  path: "/book/my-books",
  operationId: "listMyBooks",
  summary: "The caller's books",
  description:
    "Each book the caller holds, with its newest version; newest activation first unless sorted. HAL rel `myBooks`.",
  tags,
  request: { query: listQuery(myBookSortFields) },
  responses: {
    200: { ...jsonContent(z.array(MyBook), "The caller's books"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED"),
  },
});

export const listBooksWithVersionAndActivation = defineRoute("user", {
  method: "get",
  path: "/book/all-books-with-version-and-activation",
  operationId: "listBooksWithVersionAndActivation",
  summary: "Every book with its newest version and the caller's activation",
  description: "`activation` is the caller's, or null. HAL rel `booksWithVersionAndActivation`.",
  tags,
  request: { query: listQuery(bookSortFields) },
  responses: {
    200: {
      ...jsonContent(z.array(BookWithVersionAndActivation), "Every book"),
      headers: listHeaders,
    },
    ...errorResponses("VALIDATION_FAILED"),
  },
});

export const getBookWithVersionAndActivation = defineRoute("user", {
  method: "get",
  path: "/book/{id}/with-version-and-activation",
  operationId: "getBookWithVersionAndActivation",
  summary: "A book with its newest version and the caller's activation",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(BookWithVersionAndActivation, "The book"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const listActivationsOfBook = defineRoute("admin", {
  method: "get",
  path: "/book/{id}/activations",
  operationId: "listActivationsOfBook",
  summary: "List the activations of a book",
  description: "HAL rel `activations`.",
  tags,
  request: { params: IdParam, query: listQuery(activationsOfBookSortFields) },
  responses: {
    200: { ...jsonContent(z.array(Activation), "The book's activations"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const countActivationsOfBook = defineRoute("admin", {
  method: "get",
  path: "/book/{id}/activations/count",
  operationId: "countActivationsOfBook",
  summary: "Count the activations of a book",
  tags,
  request: { params: IdParam },
  responses: { ...countResponse, ...errorResponses("VALIDATION_FAILED", "NOT_FOUND") },
});
