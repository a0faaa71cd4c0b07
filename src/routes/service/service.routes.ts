import { defineRoute } from "../../http/define-route";
import { jsonContent } from "../../http/openapi";
import { headersOf } from "../../lib/problems";
import { Health } from "./service.schemas";

export const getHealth = defineRoute("public", {
  method: "get",
  path: "/health",
  operationId: "getHealth",
  summary: "Is the service able to serve?",
  description:
    "Answered within a second whatever the database is doing, also to an HTTP/1.0 request without Host. The deep checks (database write, store, storage) run at most once per 10 s per instance, shared by concurrent callers: an answer is at most that old. With STORAGE=s3 the bucket is probed by a read, never a write.",
  tags: ["Service"],
  responses: {
    200: jsonContent(Health, "Everything is reachable"),
    // In place of the SERVICE_UNAVAILABLE problem every route declares, with its Retry-After.
    503: {
      ...jsonContent(Health, "The database, the store or the data volume is not usable"),
      headers: headersOf("SERVICE_UNAVAILABLE"),
    },
  },
});
