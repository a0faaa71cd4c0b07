import { defineRoute } from "../../http/define-route";
import { IdParam } from "../../http/openapi";
import { resourceContent } from "../../http/respond";
import { listRoute } from "../../http/route-shapes";
import { myBookSortFields } from "../../repositories/activations";
import { bookSortFields } from "../../repositories/books";
import * as schemas from "./reader.schemas";

const tags = ["Book"];

export const listMyBooks = listRoute("user", {
  path: "/book/my-books",
  operationId: "listMyBooks",
  summary: "The caller's books",
  description: "Each book the caller holds, with its newest version; newest activation first unless sorted.",
  tags,
  list: schemas.MyBookList,
  sortFields: myBookSortFields,
  returns: "The caller's books",
});

export const listBooksWithVersionAndActivation = listRoute("user", {
  path: "/book/all-books-with-version-and-activation",
  operationId: "listBooksWithVersionAndActivation",
  summary: "Every book with its newest version and the caller's activation",
  description: "`activation` is the caller's, or null.",
  tags,
  list: schemas.BookWithVersionAndActivationList,
  sortFields: bookSortFields,
  returns: "Every book",
});

export const getBookWithVersionAndActivation = defineRoute("user", {
  method: "get",
  path: "/book/{id}/with-version-and-activation",
  operationId: "getBookWithVersionAndActivation",
  summary: "A book with its newest version and the caller's activation",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.BookWithVersionAndActivationResource, "The book") },
});
