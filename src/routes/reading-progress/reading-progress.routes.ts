import { defineRoute } from "../../http/define-route";
import { IdParam, jsonBody, jsonContent } from "../../http/openapi";
import * as schemas from "./reading-progress.schemas";

const tags = ["Book"];

export const getReadingProgress = defineRoute("entitled", {
  scope: "sync",
  method: "get",
  path: "/book/{id}/progress",
  operationId: "getReadingProgress",
  summary: "The caller's reading position in a book",
  description:
    "One position per user and book, shared by every app (KOReader's sync included: they meet in " +
    "`percentage`). 204 when there is none yet.",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: {
    200: jsonContent(schemas.ReadingProgress, "The position"),
    204: { description: "No position stored yet" },
  },
});

export const putReadingProgress = defineRoute("entitled", {
  scope: "sync",
  method: "put",
  path: "/book/{id}/progress",
  operationId: "putReadingProgress",
  summary: "Store the caller's reading position in a book",
  description:
    "The latest write wins, from this API or KOReader's sync. A `modified` older than the stored " +
    "position's is 409 `CONFLICT` (another device moved on: read it, then decide); one ahead of " +
    "the server's clock is taken as now.",
  tags,
  request: { params: IdParam, body: jsonBody(schemas.ReadingProgressInput) },
  errors: ["NOT_FOUND", "CONFLICT"],
  responses: { 200: jsonContent(schemas.ReadingProgress, "The stored position") },
});
