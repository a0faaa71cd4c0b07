// The OpenAPI document and Swagger UI, with Swagger UI's assets served from the
// swagger-ui-dist package so the UI works on closed networks.

import { dirname, join } from "node:path";
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import packageJson from "../../package.json" with { type: "json" };
import { BASIC_SCHEME, BEARER_SCHEME, DEVICE_TOKEN_SCHEME } from "../http/access";
import { defineRoute } from "../http/define-route";
import { registeredRoutes } from "../http/library-internals";
import { jsonContent, REQUEST_ID_HEADER, requestIdHeaderComponent } from "../http/openapi";
import type { AppBindings } from "../http/types";
import { AppError } from "../lib/problems";

const ASSET_BASE = "/swagger-ui/assets";
/** Where `GET /` sends a browser: Swagger UI, until the publisher's console exists. */
const START_PAGE = "/swagger-ui";
const assetDir = dirname(Bun.resolveSync("swagger-ui-dist/package.json", import.meta.dir));
const assets: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

/**
 * Swagger UI's start, served as a file of ours rather than inline, so that the page's policy can
 * run scripts of this origin only. No `persistAuthorization`: a typed password or token stays in
 * the tab and is not written to localStorage, where it would outlive the tab and be readable by
 * any script of the origin. No validator badge: it is an image from validator.swagger.io whose
 * URL tells a third party where this document lives.
 */
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: "/v3/api-docs", dom_id: "#swagger-ui", validatorUrl: "none" });\n`;

/**
 * The page runs, styles and shows only what this origin serves; Swagger UI also draws icons from
 * data: URLs, shows image responses from blob: URLs and calls the API (same origin, `servers: /`).
 */
const SWAGGER_UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join("; ");

const SWAGGER_UI_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>bookdist API</title>
    <link rel="stylesheet" href="${ASSET_BASE}/swagger-ui-dist/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSET_BASE}/swagger-ui-dist/swagger-ui-bundle.js"></script>
    <script src="${ASSET_BASE}/swagger-ui-init.js"></script>
  </body>
</html>
`;

const apiTags = [
  { name: "Authentication", description: "Register, log in and out, who am I" },
  {
    name: "User",
    description:
      "The store's users as staff find them: search and look-up (README, Finding users and activations)",
  },
  { name: "Book", description: "Books, their covers and the reader's views" },
  { name: "Book version", description: "Versioned zip archives of a book" },
  { name: "Activation", description: "Which user holds which book" },
  { name: "Activation QR code", description: "Codes printed into books, redeemed in the app" },
  { name: "APK", description: "The bookapp and launcher packages for devices" },
  { name: "Service", description: "Health, OpenAPI document, Swagger UI" },
  { name: "Shop", description: "WooCommerce orders grant books (API.md §7; SHOP_ORDERS=on)" },
  {
    name: "Audit log",
    description: "Every change an admin, the shop sync or an operator made (README, Audit log)",
  },
  {
    name: "OPDS",
    description: "Catalogs for reading apps: OPDS 1.2 (Atom) and 2.0 (JSON), signed file links",
  },
];

const OpenApiDocument = z
  .looseObject({
    openapi: z.string().openapi({ example: "3.1.0" }),
    info: z.looseObject({
      title: z.string().openapi({ example: "bookdist" }),
      version: z.string().openapi({ example: "1.0.0" }),
    }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())).openapi({
      description: "Every operation, by path and method",
      example: { "/health": { get: { operationId: "getHealth", tags: ["Service"] } } },
    }),
  })
  .openapi("OpenApiDocument", { description: "An OpenAPI 3.1 document" });

const tags = ["Service"];

// Documented once each; the aliases (/openapi.json, /swagger-ui.html, /swagger-ui/index.html)
// answer the same but are not operations of their own.
// Exported, like every route definition: README's route table finds an operation's module by its
// exports (bun run docs:routes).
export const getApiDocs = defineRoute("public", {
  method: "get",
  path: "/v3/api-docs",
  operationId: "getApiDocs",
  summary: "This OpenAPI document",
  description: "The document Swagger UI and the generated SDKs are built from. Alias: `/openapi.json`.",
  tags,
  responses: { 200: jsonContent(OpenApiDocument, "The OpenAPI 3.1 document") },
});

export const getSwaggerUi = defineRoute("public", {
  method: "get",
  path: "/swagger-ui",
  operationId: "getSwaggerUi",
  summary: "Swagger UI for this API",
  description:
    "An HTML page that loads this document; its assets come from this server. Aliases: `/swagger-ui.html`, `/swagger-ui/index.html`.",
  tags,
  responses: {
    200: {
      description: "The Swagger UI page",
      headers: {
        "Content-Security-Policy": {
          description: "The page may run, style and load only what this server serves",
          schema: { type: "string" },
        },
      },
      content: {
        "text/html": {
          schema: z.string().openapi({ example: '<!doctype html><html lang="en">…</html>' }),
        },
      },
    },
  },
});

export function registerApiDocs(app: OpenAPIHono<AppBindings>): void {
  app.openAPIRegistry.registerComponent("headers", REQUEST_ID_HEADER, requestIdHeaderComponent);
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
  // Declared once an operation takes device tokens (README "Reading apps"): a scheme no operation
  // names is an unused component.
  const takesDeviceTokens = registeredRoutes(app.openAPIRegistry).some((route) =>
    route.security?.some((alternative) => DEVICE_TOKEN_SCHEME in alternative),
  );
  if (takesDeviceTokens)
    app.openAPIRegistry.registerComponent("securitySchemes", DEVICE_TOKEN_SCHEME, {
      type: "http",
      scheme: "basic",
      description:
        "A reading app's credentials: the account's e-mail (or login) and a device token (`bdt_…`, " +
        "POST /authentication/device-token) as the password. Accepted only on operations that list " +
        "this scheme, and only for a token with the scope named there (also `x-device-token-scope`).",
    });

  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  const serveDocument = (c: Context<AppBindings>) => {
    // The document is the same for every request: build it once.
    document ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: {
        title: "bookdist",
        // One version: package.json's, as /health answers it.
        version: packageJson.version,
        description: "Distributes digital books and their companion Android apps.",
        license: { name: "Proprietary" },
        // Spectral's info-contact: whoever runs this instance is who SDK users reach.
        contact: { name: "The operator of this bookdist instance" },
      },
      // OpenAPI's default, made explicit: operations are at the root of the host serving this document.
      servers: [{ url: "/", description: "This server" }],
      tags: apiTags,
    });
    // The library's own OpenAPIObject type; the route's schema describes it loosely.
    return c.json(document as z.infer<typeof OpenApiDocument>, 200);
  };
  app.openapi(getApiDocs, serveDocument);
  app.get("/openapi.json", serveDocument);

  // The start-up log names the server's root: a person who opens it lands on something useful.
  // Not an API operation (the contract lists no such route), so not in the document, like the aliases.
  app.get("/", (c) => c.redirect(START_PAGE, 303));

  const ui = (c: Context<AppBindings>) =>
    c.html(SWAGGER_UI_PAGE, 200, { "Content-Security-Policy": SWAGGER_UI_CSP });
  app.openapi(getSwaggerUi, ui);
  app.get("/swagger-ui.html", ui);
  app.get("/swagger-ui/index.html", ui);
  app.get(`${ASSET_BASE}/swagger-ui-init.js`, (c) =>
    c.body(INIT_SCRIPT, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "no-cache",
    }),
  );
  app.get(`${ASSET_BASE}/swagger-ui-dist/:file`, (c) => {
    const file = c.req.param("file");
    const contentType = assets[file];
    if (!contentType) throw new AppError("NOT_FOUND", "No such asset.");
    const asset = Bun.file(join(assetDir, file));
    // Declared, as a download's is: the access log reads a file body's size from it (request-frame.ts).
    return new Response(asset, {
      headers: {
        "Content-Type": contentType,
        "Cache-Control": "public, max-age=86400",
        "Content-Length": String(asset.size),
      },
    });
  });
}
