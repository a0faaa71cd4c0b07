// The request log names the operation a request reached by the document's operationId, so a
// log line, the OpenAPI document and the route modules speak of the same `getBook`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/lib/logger";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

interface RequestLine {
  msg: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  operationId?: string;
  route?: string;
  bytes: number;
  durationMs: number;
  client: string;
  user?: string;
  incomplete?: boolean;
}

describe("the request log line", () => {
  let t: TestApp;
  const lines: string[] = [];
  let reader: { token: string; email: string; uuid: string };
  const requestLines = () =>
    lines.map((line) => JSON.parse(line) as RequestLine).filter((e) => e.msg === "request");

  /** The request line `request` wrote: the last one logged once it is answered. */
  async function logged(request: Promise<Response>): Promise<RequestLine> {
    await (await request).arrayBuffer();
    const entries = lines.map((line) => JSON.parse(line) as RequestLine).filter((e) => e.msg === "request");
    const last = entries.at(-1);
    if (last === undefined) throw new Error("no request line was logged");
    return last;
  }

  beforeAll(async () => {
    t = await createTestApp({ logger: createLogger("info", (line) => lines.push(line)) });
    reader = await t.user();
  });
  afterAll(() => t.close());

  test("names the operation and its path template, beside the path sent", async () => {
    const admin = await t.admin();
    const created = await t.call("POST", "/book", {
      token: admin.token,
      json: { title: "Logged", isbn: "9783161484100" },
    });
    const { id } = (await created.json()) as { id: number };
    expect(await logged(t.call("GET", `/book/${id}`, { token: reader.token }))).toMatchObject({
      method: "GET",
      path: `/book/${id}`,
      status: 200,
      operationId: "getBook",
      route: "/book/{id}",
    });
    const login = t.call("POST", "/authentication/login", {
      json: { email: reader.email, password: TEST_PASSWORD },
    });
    expect(await logged(login)).toMatchObject({
      path: "/authentication/login",
      status: 200,
      operationId: "login",
      route: "/authentication/login",
    });
  });

  test("names the operation a fixed segment wins, not the parameter route beside it", async () => {
    // GET /book/my-books also matches /book/{id}; the reader's route answers it.
    expect(await logged(t.call("GET", "/book/my-books", { token: reader.token }))).toMatchObject({
      status: 200,
      operationId: "listMyBooks",
      route: "/book/my-books",
    });
  });

  test("names the operation when its access check, validation or handler refuses", async () => {
    expect(await logged(t.call("GET", "/book/1"))).toMatchObject({ status: 401, operationId: "getBook" });
    expect(await logged(t.call("GET", "/book/x", { token: reader.token }))).toMatchObject({
      status: 400,
      operationId: "getBook",
    });
    expect(await logged(t.call("GET", "/book/999999", { token: reader.token }))).toMatchObject({
      status: 404,
      operationId: "getBook",
    });
  });

  test("names no operation for a request none took: 404, 405, an alias", async () => {
    for (const [method, path, status] of [
      ["GET", "/no-such-thing", 404],
      ["PUT", "/book/count", 405],
      ["GET", "/openapi.json", 200],
    ] as const) {
      const line = await logged(t.call(method, path));
      expect(line, `${method} ${path}`).toMatchObject({ method, path, status });
      expect(line, `${method} ${path}`).not.toContainKeys(["operationId", "route"]);
    }
  });

  test("says who asked, from where, and how many bytes went back, in how long", async () => {
    const response = await t.call("GET", "/book/my-books", { token: reader.token });
    const body = await response.arrayBuffer();
    const line = requestLines().at(-1)!;
    expect(line).toMatchObject({
      requestId: response.headers.get("X-Request-Id")!,
      user: reader.uuid,
      // In-process requests have no TCP peer.
      client: "unknown",
      bytes: body.byteLength,
    });
    expect(line.durationMs).toBeGreaterThanOrEqual(0);
    // No user on a request no credentials came with.
    expect(await logged(t.call("GET", "/apk/active"))).not.toContainKey("user");
  });

  test("logs a streamed body when its last byte was read, with its size", async () => {
    const admin = await t.admin();
    const book = (await (
      await t.call("POST", "/book", { token: admin.token, json: { title: "CSV" } })
    ).json()) as {
      id: number;
    };
    const batch = (await (
      await t.call("POST", "/activation-qr-code/batch", {
        token: admin.token,
        json: { bookId: book.id, quantity: 50 },
      })
    ).json()) as { batchId: number }[];
    const before = requestLines().length;
    const response = await t.call("GET", `/activation-qr-code/batch/${batch[0]!.batchId}/codes.csv`, {
      token: admin.token,
    });
    await Bun.sleep(20);
    expect(requestLines().length, "no line while the body is unread").toBe(before);
    const csv = await response.arrayBuffer();
    const line = requestLines().at(-1)!;
    expect(line).toMatchObject({ operationId: "getQrCodeBatchCsv", status: 200, bytes: csv.byteLength });
    expect(line).not.toContainKey("incomplete");
  });

  test("marks a streamed body the client stopped reading as incomplete", async () => {
    const admin = await t.admin();
    const book = (await (
      await t.call("POST", "/book", { token: admin.token, json: { title: "Sheet" } })
    ).json()) as {
      id: number;
    };
    const batch = (await (
      await t.call("POST", "/activation-qr-code/batch", {
        token: admin.token,
        json: { bookId: book.id, quantity: 40 },
      })
    ).json()) as { batchId: number }[];
    const response = await t.call("GET", `/activation-qr-code/batch/${batch[0]!.batchId}/sheet.pdf`, {
      token: admin.token,
    });
    const body = response.body!.getReader();
    const first = await body.read();
    await body.cancel();
    const line = requestLines().at(-1)!;
    expect(line).toMatchObject({ operationId: "getQrCodeBatchSheet", incomplete: true });
    expect(line.bytes).toBeGreaterThanOrEqual(first.value?.byteLength ?? 0);
  });
});
