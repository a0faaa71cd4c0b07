// One table-driven access test over the generated OpenAPI document: every operation refuses a
// caller without credentials (401) and a caller below its level (403).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bodyOf, createTestApp, type TestApp } from "./helpers/test-app";

interface Operation {
  method: string;
  path: string;
  level: "public" | "user" | "owner" | "entitled" | "admin";
  operationId: string;
}

const t: TestApp = await createTestApp();
const doc = (await bodyOf(await t.call("GET", "/v3/api-docs"))) as {
  paths: Record<
    string,
    Record<string, { "x-access-level": Operation["level"]; operationId: string; security?: unknown[] }>
  >;
};
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    level: op["x-access-level"],
    operationId: op.operationId,
  })),
);

describe("access levels", () => {
  let reader: { token: string; uuid: string };
  let bookId: number;
  let versionId: number;
  beforeAll(async () => {
    const admin = await t.admin();
    reader = await t.user();
    const created = await t.call("POST", "/book", { token: admin.token, json: { title: "Access test" } });
    bookId = (await bodyOf(created)).id;
    const version = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId, versionCode: 1, versionName: "1.0" },
    });
    versionId = (await bodyOf(version)).id;
  });
  afterAll(() => t.close());

  /** A concrete URL for a documented path: existing ids, and someone else's uuid. */
  const urlOf = (path: string) =>
    path
      .replace("{id}", String(path.startsWith("/bookversion/") ? versionId : bookId))
      .replace("{bookId}", String(bookId))
      .replace("{userUUID}", "00000000-0000-4000-8000-000000000000");

  test("every operation declares its level and matching security", () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) {
      expect(["public", "user", "owner", "entitled", "admin"]).toContain(op.level);
      const security = doc.paths[op.path]![op.method.toLowerCase()]!.security ?? [];
      expect(security.length === 0).toBe(op.level === "public");
    }
  });

  test.each(operations.filter((op) => op.level !== "public"))(
    "$method $path ($level) → 401 without credentials",
    async (op) => {
      const response = await t.call(op.method, urlOf(op.path));
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect((await bodyOf(response)).code).toBe("UNAUTHORIZED");
    },
  );

  const belowLevel = operations.filter(
    (op) =>
      op.level === "admin" ||
      op.level === "entitled" ||
      (op.level === "owner" && op.path.includes("{userUUID}")),
  );
  test.each(belowLevel)("$method $path ($level) → 403 for a plain user", async (op) => {
    const response = await t.call(op.method, urlOf(op.path), { token: reader.token });
    expect(response.status).toBe(403);
    expect((await bodyOf(response)).code).toBe("FORBIDDEN");
  });

  test.each(operations.filter((op) => op.level === "public"))("$method $path is public", async (op) => {
    const response = await t.call(op.method, urlOf(op.path));
    expect([401, 403]).not.toContain(response.status);
  });
});
