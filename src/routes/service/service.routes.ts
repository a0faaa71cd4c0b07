import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../lib/define-route";
import { jsonContent } from "../../lib/openapi";

export const Health = z
  .object({
    status: z.enum(["ok", "unavailable"]).openapi({ example: "ok" }),
    database: z
      .enum(["ok", "unavailable"])
      .openapi({ example: "ok", description: "The database can be reached and written" }),
    store: z.enum(["ok", "unavailable"]).openapi({ example: "ok" }),
    storage: z
      .enum(["ok", "unavailable"])
      .openapi({ example: "ok", description: "The data volume is writable and not full" }),
  })
  .openapi("Health");

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
