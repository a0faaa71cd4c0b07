import { IdParam } from "../../http/openapi";
import * as shapes from "../../http/route-shapes";
import { activationSortFields, myBookSortFields } from "../../repositories/activations";
import { bookSortFields } from "../../repositories/books";
import { ActivationList } from "../activations/activations.schemas";
import * as schemas from "./reader.schemas";

const tags = ["Book"];

export const listMyBooks = shapes.listRoute("user", {
  path: "/book/my-books",
  operationId: "listMyBooks",
  summary: "The caller's books",
  description: "Each book the caller holds, with its newest version; newest activation first unless sorted.",
  tags,
  list: schemas.MyBookList,
  sortFields: myBookSortFields,
  returns: "The caller's books",
});

export const listBooksWithVersionAndActivation = shapes.listRoute("user", {
  path: "/book/all-books-with-version-and-activation",
  operationId: "listBooksWithVersionAndActivation",
  summary: "Every book with its newest version and the caller's activation",
  description: "`activation` is the caller's, or null.",
  tags,
  list: schemas.BookWithVersionAndActivationList,
  sortFields: bookSortFields,
  returns: "Every book",
});

export const getBookWithVersionAndActivation = shapes.getRoute("user", {
  path: "/book/{id}/with-version-and-activation",
  operationId: "getBookWithVersionAndActivation",
  summary: "A book with its newest version and the caller's activation",
  tags,
  resource: schemas.BookWithVersionAndActivationResource,
  returns: "The book",
});

export const listActivationsOfBook = shapes.listRoute("admin", {
  path: "/book/{id}/activations",
  operationId: "listActivationsOfBook",
  summary: "List the activations of a book",
  tags,
  params: IdParam,
  errors: ["NOT_FOUND"],
  list: ActivationList,
  sortFields: activationSortFields,
  returns: "The book's activations",
});

export const countActivationsOfBook = shapes.countRoute("admin", {
  path: "/book/{id}/activations/count",
  operationId: "countActivationsOfBook",
  summary: "Count the activations of a book",
  tags,
  params: IdParam,
  errors: ["NOT_FOUND"],
});
