import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { jsonOf } from "./helpers/responses";
import { createTestApp, type TestApp } from "./helpers/test-app";

/** What these tests read of the document: its operations and its security schemes. */
type OpenApiDocument = {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        summary: string;
        tags?: string[];
        "x-access-level": string;
        parameters?: Array<{ in: string }>;
        responses: Record<string, unknown>;
      }
    >
  >;
  components: { securitySchemes: Record<string, unknown> };
};

describe("the OpenAPI document", () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as OpenApiDocument;
  });
  afterAll(() => t.close());

  test("validates as OpenAPI 3.1", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("declares the device-token scheme for the operations that take it (the OPDS catalog's, reading progress, entitlements), and stays valid 3.1", async () => {
    const withScopes = doc as OpenApiDocument & {
      paths: Record<string, Record<string, { security?: unknown[]; "x-device-token-scope"?: string }>>;
    };
    expect(withScopes.components.securitySchemes.deviceTokenAuth).toMatchObject({
      type: "http",
      scheme: "basic",
    });
    const operation = withScopes.paths["/opds/v2/shelf"]!.get!;
    expect(operation["x-device-token-scope"]).toBe("opds");
    expect(operation.security).toEqual([
      { deviceTokenAuth: ["opds"] },
      { basicAuth: [] },
      { bearerAuth: [] },
    ]);
    const scoped = Object.entries(withScopes.paths).flatMap(([path, methods]) =>
      Object.values(methods).flatMap((op) => (op["x-device-token-scope"] ? [path] : [])),
    );
    expect(scoped.length).toBeGreaterThan(1);
    expect(withScopes.paths["/book/{id}/progress"]!.put!.security).toEqual([
      { deviceTokenAuth: ["sync"] },
      { basicAuth: [] },
      { bearerAuth: [] },
    ]);
    const entitlements = withScopes.paths["/authentication/entitlements"]!.get!;
    expect(entitlements["x-device-token-scope"]).toBe("entitlements");
    expect(entitlements.security).toEqual([
      { deviceTokenAuth: ["entitlements"] },
      { basicAuth: [] },
      { bearerAuth: [] },
    ]);
    const result = await new Validator().validate(structuredClone(withScopes));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("/openapi.json is the same document", async () => {
    expect(await jsonOf(await t.call("GET", "/openapi.json"))).toEqual(doc);
  });

  test("every operation has an operationId, summary, tag and its error responses", () => {
    const ids = new Set<string>();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        expect(op.operationId, name).toBeString();
        expect(ids.has(op.operationId), `${name} repeats an operationId`).toBe(false);
        ids.add(op.operationId);
        expect(op.summary, name).toBeString();
        expect(op.tags?.length, name).toBe(1);
        expect(op.responses["500"], name).toBeDefined();
        if (op["x-access-level"] !== "public") expect(op.responses["401"], name).toBeDefined();
        if (op.parameters?.some((p) => p.in === "path")) expect(op.responses["400"], name).toBeDefined();
      }
    }
  });

  test("declares both security schemes", () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
    expect(doc.components.securitySchemes.basicAuth).toMatchObject({ type: "http", scheme: "basic" });
  });

  test("documents the authentication and book operations of API.md", () => {
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const expected of [
      "POST /authentication/register",
      "POST /authentication/login",
      "POST /authentication/logout",
      "GET /authentication/me",
      "GET /book",
      "GET /book/count",
      "GET /book/{id}",
      "POST /book",
      "PUT /book/{id}",
      "DELETE /book/{id}",
      "GET /health",
    ]) {
      expect(operations).toContain(expected);
    }
  });

  test("GET / sends a browser to Swagger UI with 303, and is no operation of the document", async () => {
    for (const method of ["GET", "HEAD"] as const) {
      const response = await t.call(method, "/");
      expect(response.status).toBe(303);
      expect(response.headers.get("location")).toBe("/swagger-ui");
    }
    const wrong = await t.call("POST", "/");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
    expect(Object.keys(doc.paths)).not.toContain("/");
  });

  test("Swagger UI is served with its assets from this server", async () => {
    for (const path of ["/swagger-ui", "/swagger-ui.html", "/swagger-ui/index.html"]) {
      const page = await t.call("GET", path);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).not.toContain("cdn.jsdelivr.net");
      // No inline script: the page's Content-Security-Policy runs only scripts served from here.
      const scripts = html.match(/<script/g)?.length;
      expect(html.match(/<script src="[^"]+"><\/script>/g)?.length).toBe(scripts!);
      const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThanOrEqual(3);
      const bodies: string[] = [];
      for (const asset of assets) {
        const response = await t.call("GET", asset);
        expect(response.status).toBe(200);
        bodies.push(await response.text());
      }
      // Swagger UI itself (its CSS and bundle), and our start script, which loads this document.
      expect(bodies.filter((body) => body.length > 10_000)).toHaveLength(2);
      expect(bodies.some((body) => body.includes('url: "/v3/api-docs"'))).toBe(true);
    }
    expect((await t.call("GET", "/swagger-ui/assets/swagger-ui-dist/package.json")).status).toBe(404);
  });
});
