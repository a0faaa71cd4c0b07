// A load balancer's health check (HAProxy's default: HTTP/1.0, no Host) against the real server:
// /health answers 200, every other path its normal problem, and no request shape ever reaches
// Bun's own (development) error page, with its HTML and source file paths.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastResortResponse } from "../../src/http/server-responses";
import { createLogger } from "../../src/lib/logger";
import { type RawResponse, rawRequest } from "../helpers/raw-http";
import { projectRoot, type SpawnedServer, spawnServer } from "../helpers/spawn-server";

/** Nothing of Bun's error page, our sources or the machine in an answer. */
function expectNoLeak(response: RawResponse) {
  const text = JSON.stringify(response);
  expect(text).not.toContain("<html");
  expect(text).not.toContain("<!DOCTYPE");
  expect(text).not.toContain(projectRoot);
  expect(text).not.toMatch(/\.ts\b|node_modules|at \S+ \(/);
  expect(response.body.length).toBeLessThan(2000);
}

function expectProblem(response: RawResponse, status: number, code: string) {
  expectNoLeak(response);
  expect(response.status).toBe(status);
  expect(response.headers["content-type"]).toStartWith("application/problem+json");
  expect(JSON.parse(response.body)).toMatchObject({ status, code });
}

describe("HTTP/1.0 without Host, as a load balancer probes", () => {
  let dataDir: string;
  let server: SpawnedServer;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-http10-"));
    server = await spawnServer({ dataDir });
  }, 60_000);
  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("GET /health is 200 with the health document", async () => {
    const response = await rawRequest(server.port, "GET /health HTTP/1.0\r\n\r\n");
    expectNoLeak(response);
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ status: "ok", database: "ok" });
    const head = await rawRequest(server.port, "HEAD /health HTTP/1.0\r\n\r\n");
    expect(head.status).toBe(200);
    expect(head.body).toBe("");
  });

  test("other paths answer their normal problem", async () => {
    // `/` answers GET and HEAD only (a redirect to Swagger UI): any other method is 405.
    expectProblem(await rawRequest(server.port, "OPTIONS / HTTP/1.0\r\n\r\n"), 405, "METHOD_NOT_ALLOWED");
    const root = await rawRequest(server.port, "GET / HTTP/1.0\r\n\r\n");
    expectNoLeak(root);
    expect(root.status).toBe(303);
    expect(root.headers.location).toBe("/swagger-ui");
    expectProblem(await rawRequest(server.port, "GET /nowhere HTTP/1.0\r\n\r\n"), 404, "NOT_FOUND");
    const book = await rawRequest(server.port, "GET /book HTTP/1.0\r\n\r\n");
    expectProblem(book, 401, "UNAUTHORIZED");
    expect(book.headers["www-authenticate"]).toStartWith("Bearer");
    expectProblem(await rawRequest(server.port, "GET /book/x%00 HTTP/1.0\r\n\r\n"), 401, "UNAUTHORIZED");
    expectProblem(
      await rawRequest(server.port, "DELETE /health HTTP/1.0\r\n\r\n"),
      405,
      "METHOD_NOT_ALLOWED",
    );
    expectProblem(
      await rawRequest(server.port, "GET /no/such/path?a=b:c HTTP/1.0\r\n\r\n"),
      404,
      "NOT_FOUND",
    );
    const login = await rawRequest(
      server.port,
      "POST /authentication/login HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    );
    expectProblem(login, 400, "VALIDATION_FAILED");
    expect(JSON.parse(login.body).instance).toBe("/authentication/login");
  });

  test("odd request shapes get an answer from the app or a bare status, never Bun's page", async () => {
    const shapes = [
      "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n",
      "GET http://evil.example/health HTTP/1.0\r\n\r\n",
      "GET /health HTTP/1.0\r\nHost: \r\n\r\n",
      "GET /health HTTP/1.0\r\nHost: [::1\r\n\r\n",
      "GET //health HTTP/1.0\r\n\r\n",
      "GET * HTTP/1.0\r\n\r\n",
      "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    ];
    for (const shape of shapes) {
      const response = await rawRequest(server.port, shape);
      expectNoLeak(response);
      expect(response.status).not.toBe(500);
    }
  });
});

describe("the last-resort error handler of Bun.serve", () => {
  test("answers a bare 500 problem with a request id, and logs the error with it", async () => {
    const lines: string[] = [];
    const response = lastResortResponse(
      createLogger("info", (line) => lines.push(line)),
      new Error(`boom in ${projectRoot}/src/secret.ts`),
    );
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=UTF-8");
    const requestId = response.headers.get("x-request-id");
    const body = await response.json();
    expect(body).toMatchObject({ status: 500, code: "INTERNAL_ERROR", requestId });
    expect(JSON.stringify(body)).not.toContain(projectRoot);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", requestId });
  });
});
