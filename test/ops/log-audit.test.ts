// The run-wide log audit (test/helpers/log-audit.ts) recognises what it must: a check that found
// nothing because it could find nothing would pass every run.
import { describe, expect, test } from "bun:test";
import { registerSecret, secretKindsIn, secretKindsInAuditEvent } from "../helpers/log-audit";

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
