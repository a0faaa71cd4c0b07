// The run-wide log audit (test/helpers/log-audit.ts) recognises what it must: a check that found
// nothing because it could find nothing would pass every run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isStreamedList, markStreamedList } from "../../src/http/list-stream";
import {
  auditResponse,
  logAuditReport,
  registerSecret,
  secretKindsIn,
  secretKindsInAuditEvent,
} from "../helpers/log-audit";
import { createTestApp, type TestApp } from "../helpers/test-app";

describe("the log audit", () => {
  test("a request line as the server writes it holds no secret", () => {
    const line = JSON.stringify({
      time: "2026-11-24T12:00:00.000Z",
      level: "info",
      msg: "request",
      requestId: "6faa7d6b-2a3c-4d6e-8f00-112233445566",
      method: "GET",
      path: "/book/1/newest-book-version",
      route: "/book/{id}/newest-book-version",
      operationId: "getNewestBookVersion",
      status: 200,
      bytes: 12865,
      durationMs: 2.6,
      client: "127.0.0.1",
      user: "455af6e2-0000-4000-8000-000000000000",
    });
    expect(secretKindsIn(line)).toEqual([]);
  });

  test.each([
    ['{"msg":"x","token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3OCJ9.sig"}', "a JWT"],
    ['{"msg":"x","header":"Bearer abc"}', "a Bearer credential"],
    ['{"msg":"x","header":"Basic YWRtaW46c2VjcmV0"}', "a Basic credential"],
    ['{"msg":"x","body":{"email":"a@b.c","password":"hunter22"}}', "a password field"],
    [
      '{"msg":"x","location":"http://127.0.0.1:7480/b/blobs/ab?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=00ff"}',
      "a presigned URL's signature",
    ],
    ['{"msg":"x","path":"/apk/bookapp.apk?sha256=00ff"}', "a versioned link's query secret"],
    ['{"msg":"x","code":"7KQ4-M2XD-9RTF-0BHA"}', "an activation code"],
    [
      '{"msg":"x","key":{"crv":"Ed25519","d":"Ao9hBLHmvVsqaVlDUcwLQttwS9dWe7_gClFeMa1NjNU","kty":"OKP"}}',
      "a private JWK",
    ],
    [
      '{"msg":"x","pkcs8":"MC4CAQAwBQYDK2VwBCIEIAKPYQSx5r1bKmlZQ1HMC0LbcEvXVnu/4ApRXjGtTYzV"}',
      "an Ed25519 private key",
    ],
    ['{"msg":"x","hex":"302e020100300506032b6570042204200a8f"}', "an Ed25519 private key"],
  ])("%s → %s", (line, kind) => {
    expect(secretKindsIn(line)).toContain(kind);
  });

  test("a secret the run registered is found by value", () => {
    registerSecret("bucket-secret-key-for-this-test");
    expect(secretKindsIn('{"msg":"x","cause":"bucket-secret-key-for-this-test"}')).toEqual([
      "a known secret (31 characters)",
    ]);
  });

  test("an audit event as the services write it holds no secret; one with a secret's field or value is found", () => {
    const event = (changes: Record<string, [unknown, unknown]>) => ({
      id: 1,
      at: "2026-11-24T12:00:00.000Z",
      actorUuid: "455af6e2-0000-4000-8000-000000000000",
      actorEmail: "admin@example.com",
      actorVia: "api",
      action: "book.cover",
      targetType: "book",
      targetId: "7",
      changes: JSON.stringify(changes),
      requestId: "6faa7d6b-2a3c-4d6e-8f00-112233445566",
      client: "127.0.0.1",
    });
    const sha = "ab".repeat(32);
    expect(secretKindsInAuditEvent(event({ coverSha256: [null, sha], coverSize: [null, 512] }))).toEqual([]);
    expect(secretKindsInAuditEvent(event({ passwordHash: [null, "x"] }))).toEqual([
      "a secret's field (passwordHash) in changes",
    ]);
    expect(secretKindsInAuditEvent(event({ code: [null, "x"] }))).toContain(
      "a secret's field (code) in changes",
    );
    expect(secretKindsInAuditEvent(event({ label: [null, "7KQ4-M2XD-9RTF-0BHA"] }))).toContain(
      "an activation code",
    );
  });
});

describe("the response audit", () => {
  const PRIVATE_JWK = {
    crv: "Ed25519",
    d: "Ao9hBLHmvVsqaVlDUcwLQttwS9dWe7_gClFeMa1NjNU",
    kty: "OKP",
    x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
  };
  const LIST_MARK = [{ has: isStreamedList, mark: markStreamedList }];
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  test("a private JWK planted in a JSON answer is found, and the test reads the answer unchanged", async () => {
    const kinds: string[] = [];
    const planted = Response.json({ keys: [PRIVATE_JWK] });
    const given = await auditResponse(planted, "test", LIST_MARK, (kind) => kinds.push(kind));
    expect(kinds).toEqual(["a private JWK"]);
    expect(given).toBe(planted);
    expect(await given.json()).toEqual({ keys: [PRIVATE_JWK] });
  });

  test("a problem+json answer holding a PKCS #8 key is found", async () => {
    const kinds: string[] = [];
    const planted = new Response('{"detail":"MC4CAQAwBQYDK2VwBCIEIAKPYQSx5r1bKmlZQ1HMC0LbcEvXVnu"}', {
      headers: { "content-type": "application/problem+json" },
    });
    await auditResponse(planted, "test", LIST_MARK, (kind) => kinds.push(kind));
    expect(kinds).toEqual(["an Ed25519 private key"]);
  });

  test("a session token's answer and the public JWKS are not flagged", async () => {
    const kinds: string[] = [];
    const register = await t.call("POST", "/authentication/register", {
      json: { email: "audit-reader@example.com", password: "correct horse battery staple" },
    });
    expect(register.status).toBe(201);
    const session = (await register.json()) as { token: string };
    expect(secretKindsIn(JSON.stringify(session))).toContain("a JWT");
    await auditResponse(Response.json(session), "test", LIST_MARK, (kind) => kinds.push(kind));
    const { d: _, ...publicJwk } = PRIVATE_JWK;
    await auditResponse(Response.json({ keys: [publicJwk] }), "test", LIST_MARK, (kind) => kinds.push(kind));
    expect(kinds).toEqual([]);
  });

  test("a file's bytes are not read", async () => {
    const kinds: string[] = [];
    const file = new Response(JSON.stringify(PRIVATE_JWK), {
      headers: { "content-type": "application/epub+zip" },
    });
    await auditResponse(file, "test", LIST_MARK, (kind) => kinds.push(kind));
    expect(kinds).toEqual([]);
  });

  test("a streamed list is not read ahead: searched as the test reads it, a key split across chunks found", async () => {
    const text = JSON.stringify([{ id: 1 }, PRIVATE_JWK, { id: 3 }]);
    const split = text.indexOf('"d"') + 10;
    const pieces = [text.slice(0, split), text.slice(split)];
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const piece = pieces[pulled++];
          if (piece === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(piece));
        },
      },
      { highWaterMark: 0 },
    );
    const list = markStreamedList(new Response(stream, { headers: { "content-type": "application/json" } }));
    const kinds: string[] = [];
    const given = await auditResponse(list, "test", LIST_MARK, (kind) => kinds.push(kind));
    await Bun.sleep(10);
    expect(pulled).toBe(0);
    expect(isStreamedList(given)).toBe(true);
    expect(given.headers.get("content-type")).toBe("application/json");
    expect(kinds).toEqual([]);
    expect(await given.text()).toBe(text);
    expect(kinds).toContain("a private JWK");
  });

  test("a CSV export (streamed, its mark not kept outside the app) is not read ahead either", async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (pulled++ > 0) controller.close();
          else controller.enqueue(new TextEncoder().encode("code,url\n"));
        },
      },
      { highWaterMark: 0 },
    );
    const csv = new Response(stream, { headers: { "content-type": "text/csv; charset=utf-8" } });
    const given = await auditResponse(csv, "test", LIST_MARK, () => {});
    await Bun.sleep(10);
    expect(pulled).toBe(0);
    expect(await given.text()).toBe("code,url\n");
  });

  test("every answer of the test app, by `call` and by `app.request`, is counted", async () => {
    const before = logAuditReport().auditedResponses;
    expect((await t.call("GET", "/health")).status).toBe(200);
    expect((await t.app.request("/book")).status).toBe(401);
    expect(logAuditReport().auditedResponses).toBe(before + 2);
  });
});
