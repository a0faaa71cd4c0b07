import { defineRoute } from "../../lib/define-route";
import { jsonContent } from "../../lib/openapi";
import { Health } from "./service.schemas";

export const health = defineRoute("public", {
  method: "get",
  path: "/health",
  operationId: "getHealth",
  summary: "Is the service able to serve?",
  tags: ["Service"],
  responses: {
    200: jsonContent(Health, "Everything is reachable"),
    503: jsonContent(Health, "The database, the store or the data volume is not usable"),
  },
});
