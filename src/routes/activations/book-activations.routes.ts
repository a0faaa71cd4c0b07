// A book's activations: a sub-collection of /book/{id}, served from the folder of its records.
// Tagged Book, as the document has always listed it among a book's views.
import { IdParam } from "../../http/openapi";
import { countRoute, listRoute } from "../../http/route-shapes";
import { activationSortFields } from "../../repositories/activations";
import { ActivationList } from "./activations.schemas";

const tags = ["Book"];

export const listActivationsOfBook = listRoute("admin", {
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

export const countActivationsOfBook = countRoute("admin", {
  path: "/book/{id}/activations/count",
  operationId: "countActivationsOfBook",
  summary: "Count the activations of a book",
  tags,
  params: IdParam,
  errors: ["NOT_FOUND"],
});
