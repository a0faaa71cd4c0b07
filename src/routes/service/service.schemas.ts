import { z } from "@hono/zod-openapi";

export const Health = z
  .object({
    status: z.enum(["ok", "unavailable"]).openapi({ example: "ok" }),
    version: z.string().openapi({ example: "1.0.0", description: "bookdist's version (its package.json)" }),
    database: z
      .enum(["ok", "unavailable"])
      .openapi({ example: "ok", description: "The database can be reached and written" }),
    store: z.enum(["ok", "unavailable"]).openapi({ example: "ok" }),
    storage: z.enum(["ok", "unavailable"]).openapi({
      example: "ok",
      description:
        "The data volume takes a write and is not full; with STORAGE=s3 the bucket also answers a read with our credentials",
    }),
  })
  .openapi("Health");
