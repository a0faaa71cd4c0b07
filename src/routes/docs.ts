// The OpenAPI document and Swagger UI, with Swagger UI's assets served from the
// swagger-ui-dist package so the UI works on closed networks.
import { dirname, join } from "node:path";
import { swaggerUI } from "@hono/swagger-ui";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { BASIC_SCHEME, BEARER_SCHEME } from "../auth/access";
import { AppError } from "../lib/problems";
import type { AppBindings } from "../lib/types";

const ASSET_BASE = "/swagger-ui/assets";
const assetDir = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));
const assets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

export const apiTags = [
  { name: "Authentication", description: "Register, log in and out, who am I" },
  { name: "Book", description: "Books, their covers and the reader's views" },
  { name: "Book version", description: "Versioned zip archives of a book" },
  { name: "Activation", description: "Which user holds which book" },
  { name: "Activation QR code", description: "Codes printed into books, redeemed in the app" },
  { name: "APK", description: "The bookapp and launcher packages for devices" },
  { name: "Service", description: "Health, OpenAPI document, Swagger UI" },
];

export function registerApiDocs(app: OpenAPIHono<AppBindings>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", BEARER_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "The token of POST /authentication/login or /register.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", BASIC_SCHEME, {
    type: "http",
    scheme: "basic",
    description: "The store user's e-mail (or login) and password; for scripts. No session is created.",
  });

  let document: unknown;
  const serveDocument = (c: Context<AppBindings>) => {
    // The document is the same for every request: build it once.
    document ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "bookdist",
        version: "1.0.0",
        description: "Distributes digital books and their companion Android apps.",
        license: { name: "Proprietary" },
      },
      // OpenAPI's default, made explicit: operations are at the root of the host serving this document.
      servers: [{ url: "/", description: "This server" }],
      tags: apiTags,
    });
    return c.json(document, 200);
  };
  app.get("/v3/api-docs", serveDocument);
  app.get("/openapi.json", serveDocument);

  const ui = swaggerUI<AppBindings>({
    url: "/v3/api-docs",
    baseUrl: ASSET_BASE,
    title: "bookdist API",
    persistAuthorization: true,
  });
  app.get("/swagger-ui", ui);
  app.get("/swagger-ui.html", ui);
  app.get("/swagger-ui/index.html", ui);
  app.get(`${ASSET_BASE}/swagger-ui-dist/:file`, (c) => {
    const file = c.req.param("file");
    const contentType = assets[file];
    if (!contentType) throw new AppError("NOT_FOUND", "No such asset.");
    return new Response(Bun.file(join(assetDir, file)), {
      headers: { "Content-Type": contentType, "Cache-Control": "public, max-age=86400" },
    });
  });
}
