// What src/http/library-internals.ts relies on in hono, @hono/zod-openapi and Bun.serve beyond their
// documented API, each against the installed packages, each in a test named after it: an upgrade
// that changes one fails here, by name, before a request fails somewhere else.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { Hono } from "hono";
import {
  cacheRequestBody,
  registeredRoutes,
  replaceResponse,
  requestEnded,
  routingPathOf,
} from "../../src/http/library-internals";

describe("hono's request body cache (c.req.bodyCache, its private #cachedBody)", () => {
  test("json(), text() and arrayBuffer() answer from a cached body, not the request's", async () => {
    const app = new Hono();
    app.post("/", async (c) => {
      cacheRequestBody(c, '{"cached":true}', new TextEncoder().encode("raw bytes"));
      const [json, text, bytes] = [await c.req.json(), await c.req.text(), await c.req.arrayBuffer()];
      return c.json({ json, text, bytes: new TextDecoder().decode(bytes) });
    });
    const res = await app.request("/", { method: "POST", body: '{"sent":true}' });
    expect(await res.json()).toEqual({
      json: { cached: true },
      text: '{"cached":true}',
      bytes: "raw bytes",
    });
  });

  test("@hono/zod-openapi's JSON validator reads the cached body", async () => {
    const app = new OpenAPIHono();
    const route = createRoute({
      method: "post",
      path: "/",
      request: { body: { content: { "application/json": { schema: z.object({ n: z.number() }) } } } },
      responses: { 200: { description: "ok" } },
    });
    app.use(async (c, next) => {
      cacheRequestBody(c, '{"n":42}', new Uint8Array());
      await next();
    });
    app.openapi(route, (c) => c.json(c.req.valid("json"), 200));
    const res = await app.request("/", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: '{"n":"not read"}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ n: 42 });
  });
});

describe("hono's c.res setter", () => {
  test("replacing c.res keeps the new response itself: its identity, body and Content-Length", async () => {
    const replacement = new Response("replaced", { headers: { "Content-Length": "8", "X-Mine": "1" } });
    let kept = false;
    const app = new Hono();
    app.use(async (c, next) => {
      await next();
      replaceResponse(c, replacement);
      kept = c.res === replacement;
    });
    app.get("/", (c) => c.text("original", 200, { "X-Original": "1" }));
    const res = await app.request("/");
    expect(kept).toBe(true);
    expect(await res.text()).toBe("replaced");
    expect(res.headers.get("content-length")).toBe("8");
    // Nothing of the response it replaced is merged in.
    expect(res.headers.get("x-original")).toBeNull();
  });
});

describe("zod-to-openapi's registry (app.openAPIRegistry.definitions)", () => {
  test("an operation app.openapi() registered is a route definition with its method, path and operationId", () => {
    const app = new OpenAPIHono();
    app.openAPIRegistry.registerComponent("securitySchemes", "basic", { type: "http", scheme: "basic" });
    const route = createRoute({
      method: "get",
      path: "/thing/{id}",
      operationId: "getThing",
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: { description: "ok" } },
    });
    app.openapi(route, (c) => c.text("thing"));
    expect(
      registeredRoutes(app.openAPIRegistry).map(({ method, path, operationId }) => [
        method,
        path,
        operationId,
      ]),
    ).toEqual([["get", "/thing/{id}", "getThing"]]);
  });

  test("@hono/zod-openapi routes a document path {id} as hono's :id", () => {
    const app = new OpenAPIHono();
    const route = createRoute({
      method: "get",
      path: "/thing/{id}/part/{partId}",
      request: { params: z.object({ id: z.string(), partId: z.string() }) },
      responses: { 200: { description: "ok" } },
    });
    app.openapi(route, (c) => c.text("part"));
    const paths = new Set(app.routes.map((entry) => entry.path));
    expect([...paths]).toEqual([routingPathOf("/thing/{id}/part/{partId}")]);
    expect(routingPathOf("/thing/{id}/part/{partId}")).toBe("/thing/:id/part/:partId");
  });
});

describe("Bun.serve's requestIP answers null once a response was sent (requestEnded)", () => {
  test("a file body Bun sends itself: the request is held until its last byte, then forgotten", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bookdist-request-ended-"));
    const path = join(dir, "file.bin");
    // More than the loopback socket buffers hold, so the first chunk read leaves the transfer running.
    writeFileSync(path, new Uint8Array(64 * 1024 * 1024));
    let served: Request | undefined;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) => {
        served = request;
        return new Response(Bun.file(path));
      },
    });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/`);
      const reader = response.body!.getReader();
      await reader.read();
      expect(requestEnded(server, served!)).toBe(false);
      while (!(await reader.read()).done);
      let ended = false;
      for (let i = 0; i < 100 && !ended; i++) {
        await Bun.sleep(10);
        ended = requestEnded(server, served!);
      }
      expect(ended).toBe(true);
      expect(served!.signal.aborted).toBe(false);
    } finally {
      await server.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
