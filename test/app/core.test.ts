import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import packageJson from "../../package.json" with { type: "json" };
import { queuedWrite } from "../../src/db/transaction";
import { toAppError } from "../../src/http/error-handler";
import { DOCUMENT_HEADERS, SECURITY_HEADERS } from "../../src/http/request-frame";
import { createLogger } from "../../src/lib/logger";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { Health } from "../../src/routes/service/service.schemas";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

describe("HTTP core", () => {
  let t: TestApp;
  let admin: { token: string };
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
  });
  afterAll(() => t.close());

  test("an unknown path is a 404 problem", async () => {
    const response = await t.call("GET", "/nothing/here");
    expect(response.headers.get("content-type")).toBe("application/problem+json; charset=UTF-8");
    const body = await expectProblem(response, 404, "NOT_FOUND");
    expect(body).toMatchObject({
      type: "urn:problem:not-found",
      status: 404,
      code: "NOT_FOUND",
      instance: "/nothing/here",
    });
    expect(body.errors).toBeUndefined();
  });

  test("a known path with another method is 405 with Allow", async () => {
    const response = await t.call("PATCH", "/book", { token: admin.token });
    expect(response.headers.get("allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
    await expectProblem(response, 405, "METHOD_NOT_ALLOWED");
    const onId = await t.call("POST", "/book/5");
    expect(onId.status).toBe(405);
    expect(onId.headers.get("allow")?.split(", ").sort()).toEqual(["DELETE", "GET", "HEAD", "PUT"]);
  });

  test("fixed segments win over {id}: 405 with their own Allow, never a 400 for the id", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/book/count", "GET, HEAD"],
      ["PUT", "/book/count", "GET, HEAD"],
      ["DELETE", "/book/my-books", "GET, HEAD"],
      ["POST", "/apk/active", "GET, HEAD"],
      ["PUT", "/apk/active", "GET, HEAD"],
      ["GET", "/activation/by-qr-code", "POST"],
      ["DELETE", "/activation-qr-code/batch", "POST"],
      ["POST", "/activation-qr-code/batch/en-disable", "GET, HEAD"],
      ["POST", "/apk/download/activebookapp", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const response = await t.call(method, path, { token: admin.token });
      expect({ method, path, status: response.status, allow: response.headers.get("allow") }).toEqual({
        method,
        path,
        status: 405,
        allow,
      });
      await expectProblem(response, 405, "METHOD_NOT_ALLOWED");
    }
    // The fixed segment's own methods still reach it; an id in the same place still has its own.
    expect((await t.call("GET", "/book/count", { token: admin.token })).status).toBe(200);
    expect((await t.call("HEAD", "/apk/active", { token: admin.token })).status).toBe(200);
    expect((await t.call("PUT", "/book/abc", { token: admin.token, json: {} })).status).toBe(400);
    expect((await t.call("POST", "/book/abc")).headers.get("allow")).toBe("GET, HEAD, PUT, DELETE");
  });

  test("request ids: generated; a client's own not echoed without a trusted proxy's peer", async () => {
    const generated = await t.call("GET", "/health");
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    // In-process requests have no peer, so no trusted proxy (test/http/request-id.test.ts has the echo).
    const own = await t.call("GET", "/health", { headers: { "X-Request-Id": "abc-123" } });
    expect(own.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const insane = await t.call("GET", "/health", { headers: { "X-Request-Id": "<script>" } });
    expect(insane.headers.get("x-request-id")).not.toBe("<script>");
  });

  test("security headers on everything; the document-only ones on HTML pages", async () => {
    for (const path of ["/health", "/missing", "/v3/api-docs", "/swagger-ui"]) {
      const response = await t.call("GET", path);
      for (const [name, value] of SECURITY_HEADERS) expect(response.headers.get(name)).toBe(value);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      const html = response.headers.get("content-type")!.startsWith("text/html");
      expect(html).toBe(path === "/swagger-ui");
      for (const [name, value] of DOCUMENT_HEADERS) {
        expect(response.headers.get(name)).toBe(html ? value : null);
      }
    }
  });

  test("malformed JSON and non-object bodies are INVALID_DEFINITION", async () => {
    const malformed = await t.call("POST", "/book", {
      token: admin.token,
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    await expectProblem(malformed, 400, "INVALID_DEFINITION");
    for (const json of [[1, 2], "title", null]) {
      const response = await t.call("POST", "/book", { token: admin.token, json });
      await expectProblem(response, 400, "INVALID_DEFINITION");
    }
  });

  test("validation failures list their fields", async () => {
    const response = await t.call("POST", "/book", { token: admin.token, json: { title: "", isbn: "123" } });
    const body = await expectProblem(response, 400, "VALIDATION_FAILED");
    expect(body.errors!.map((e: { path: string }) => e.path).sort()).toEqual(["isbn", "title"]);
  });

  test("a JSON body without Content-Type is not taken as valid", async () => {
    const body = new TextEncoder().encode(JSON.stringify({ title: "x" }));
    const response = await t.call("POST", "/book", { token: admin.token, body });
    // Bun labels a byte body application/octet-stream: not JSON, so 415 rather than a guess.
    await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("a wrong Content-Type is 415", async () => {
    const response = await t.call("POST", "/book", {
      token: admin.token,
      headers: { "Content-Type": "text/plain" },
      body: "title=x",
    });
    await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("a JSON body over the limit is 413", async () => {
    const response = await t.call("POST", "/book", {
      token: admin.token,
      json: { title: "big", description: "x".repeat(2 * 1024 * 1024) },
    });
    await expectProblem(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test("the body limit holds for every route but the three uploads, whatever the Content-Type", async () => {
    const user = await t.user();
    const multipart = { "Content-Type": "multipart/form-data; boundary=x" };
    const big = "x".repeat(2 * 1024 * 1024);
    const logout = await t.call("POST", "/authentication/logout", {
      token: user.token,
      headers: multipart,
      body: big,
    });
    await expectProblem(logout, 413, "PAYLOAD_TOO_LARGE");
    const book = await t.call("POST", "/book", { token: admin.token, headers: multipart, body: big });
    expect(book.status).toBe(413);

    // A streamed body without Content-Length is cut off near the limit, not read to its end.
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 64 * 1024 * 1024) return controller.close();
        pulled += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const streamed = await t.call("POST", "/authentication/logout", {
      token: user.token,
      headers: multipart,
      body: stream,
    });
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(4 * 1024 * 1024);
    expect((await t.call("GET", "/authentication/me", { token: user.token })).status).toBe(200);

    // The uploads bound themselves (MAX_*_BYTES), so a 2 MiB archive is not refused for its size.
    const created = await t.call("POST", "/book", { token: admin.token, json: { title: "Limits" } });
    const version = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId: (await bodyAs(created, Book)).id, versionCode: 1, versionName: "1" },
    });
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(2 * 1024 * 1024)]), "book.zip");
    const upload = await t.call("POST", `/bookversion/${(await bodyAs(version, BookVersion)).id}/upload`, {
      token: admin.token,
      body: form,
    });
    expect(upload.status).not.toBe(413);
    expect(upload.status).toBeLessThan(500);
  });

  test("JSON, HAL and problems say charset=UTF-8; other types are left alone", async () => {
    const type = async (path: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
      (await t.call(init.method ?? "GET", path, { token: admin.token, headers: init.headers })).headers.get(
        "content-type",
      );
    expect(await type("/health")).toBe("application/json; charset=UTF-8");
    expect(await type("/health", { method: "HEAD" })).toBe("application/json; charset=UTF-8");
    expect(await type("/v3/api-docs")).toBe("application/json; charset=UTF-8");
    expect(await type("/book", { headers: { Accept: "application/hal+json" } })).toBe(
      "application/hal+json; charset=UTF-8",
    );
    expect(await type("/book/999999")).toBe("application/problem+json; charset=UTF-8");
    expect(await type("/book", { method: "PATCH" })).toBe("application/problem+json; charset=UTF-8");
    expect(await type("/book/count")).toBe("text/plain;charset=UTF-8");
    expect(await type("/swagger-ui")).toStartWith("text/html");
  });

  test("HEAD works where GET does, without a body", async () => {
    const response = await t.call("HEAD", "/health");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });

  test("health reports the database and the store", async () => {
    const response = await t.call("GET", "/health");
    expect(response.status).toBe(200);
    expect(await bodyAs(response, Health)).toEqual({
      status: "ok",
      version: packageJson.version,
      database: "ok",
      store: "ok",
      storage: "ok",
    });
  });

  test("database constraint errors map to CONFLICT and VALIDATION_FAILED", async () => {
    const { db } = t.deps;
    const now = new Date();
    const foreignKey = await queuedWrite(db, (tx) =>
      tx.orm
        .insert(db.tables.bookVersion)
        .values({ bookId: 999_999, versionCode: 1, versionName: "1", createdAt: now, updatedAt: now }),
    ).catch((e: unknown) => e);
    expect(toAppError(foreignKey)?.code).toBe("VALIDATION_FAILED");
    const insertBlob = () =>
      queuedWrite(db, (tx) =>
        tx.orm.insert(db.tables.blob).values({ sha256: "a".repeat(64), size: 1, createdAt: now }),
      );
    await insertBlob();
    const unique = await insertBlob().catch((e: unknown) => e);
    expect(toAppError(unique)?.code).toBe("CONFLICT");
  });
});

describe("CORS", () => {
  test("CORS_ORIGINS lists origins, or * for any", async () => {
    const listed = await createTestApp({ env: { CORS_ORIGINS: "https://a.example,http://localhost:5173" } });
    const origin = async (app: TestApp, from: string) =>
      (await app.call("GET", "/health", { headers: { Origin: from } })).headers.get(
        "access-control-allow-origin",
      );
    expect(await origin(listed, "http://localhost:5173")).toBe("http://localhost:5173");
    expect(await origin(listed, "https://b.example")).toBeNull();
    await listed.close();
    const any = await createTestApp({ env: { CORS_ORIGINS: "*" } });
    expect(await origin(any, "https://b.example")).toBe("*");
    await any.close();
  });
});

describe("unexpected errors", () => {
  test("answer 500 with the request id and nothing internal; the log has the stack", async () => {
    const lines: string[] = [];
    const t = await createTestApp();
    t.deps.logger = createLogger("info", (line) => lines.push(line));
    t.app.get("/explode", () => {
      throw new Error("SELECT secret FROM users -- /srv/bookdist/data");
    });
    const response = await t.call("GET", "/explode");
    expect(response.status).toBe(500);
    const requestId = response.headers.get("x-request-id")!;
    const text = await response.text();
    expect(text).not.toContain("SELECT");
    expect(text).not.toContain("/srv");
    expect(text).not.toContain("at ");
    const body = JSON.parse(text);
    expect(body).toMatchObject({ code: "INTERNAL_ERROR", status: 500, requestId });
    expect(body.detail).toContain(requestId);
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === "unexpected error");
    expect(logged.requestId).toBe(requestId);
    expect(logged.frames.length).toBeGreaterThan(0);
    await t.close();
  });
});
