// 401 answers carry WWW-Authenticate, 405 Allow, 416 Content-Range and 429/503/507
// Retry-After, and the OpenAPI document declares each of those headers on every response of those
// statuses, including the ones a route answers with a body of its own (GET /health's 503).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RealServer, startRealServer } from "../helpers/real-server";

const headerOfStatus: Record<string, string> = {
  "401": "WWW-Authenticate",
  "405": "Allow",
  "416": "Content-Range",
  "429": "Retry-After",
  "503": "Retry-After",
  "507": "Retry-After",
};

type Operation = {
  parameters?: { name: string; in: string }[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
};

let server: RealServer;
let paths: Record<string, Record<string, Operation>>;

beforeAll(async () => {
  server = await startRealServer();
  paths = ((await (await fetch(`${server.url}/v3/api-docs`)).json()) as { paths: typeof paths }).paths;
}, 60_000);

afterAll(() => server?.stop());

describe("the OpenAPI document of the real server", () => {
  test("declares the header API.md §2 names on every response of its status", () => {
    const missing: string[] = [];
    let checked = 0;
    for (const [path, methods] of Object.entries(paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const header = headerOfStatus[status];
          if (header === undefined) continue;
          checked++;
          if (!response.headers?.[header])
            missing.push(`${method.toUpperCase()} ${path} ${status}: ${header}`);
        }
      }
    }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  test("every whole list declares its 429 (a second stream) and 503 (no slot in time), with Retry-After", () => {
    const lists = Object.entries(paths).flatMap(([path, methods]) => {
      const get = methods.get;
      const query = new Set(get?.parameters?.filter((p) => p.in === "query").map((p) => p.name));
      const pageable = query.has("page") && query.has("size");
      return get && (pageable || path.endsWith("/null-activations")) ? [[path, get] as const] : [];
    });
    expect(lists.length).toBeGreaterThan(10);
    const missing = lists.flatMap(([path, get]) =>
      ["429", "503"]
        .filter((status) => !get.responses[status]?.headers?.["Retry-After"])
        .map((s) => `${path} ${s}`),
    );
    expect(missing).toEqual([]);
  });

  test("GET /health's 503 declares Retry-After", () => {
    expect(paths["/health"]?.get?.responses["503"]?.headers).toHaveProperty("Retry-After");
  });
});
