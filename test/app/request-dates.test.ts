// Dates in request bodies: RFC 3339 with a year from 1970 to 9999, anything else a
// 400 VALIDATION_FAILED on every database: the real server on SQLite, and on Postgres when
// TEST_DATABASE_URL is set. Before, year 0000 was a 500 on Postgres, and an offset that carries
// 9999-12-31 into year 10000 came back as "+010000-…" on SQLite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adminWithBook } from "../helpers/admin-cli";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { TEST_PASSWORD } from "../helpers/test-app";

const ADMIN = "dates-admin@example.com";

let server: RealServer;
let token: string;
let bookId: number;

beforeAll(async () => {
  server = await startRealServer();
  ({ token, bookId } = await adminWithBook(server, server.dataEnv, {
    email: ADMIN,
    password: TEST_PASSWORD,
    bookTitle: "Dates",
  }));
});
afterAll(async () => {
  await server?.stop();
});

function post(path: string, json: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(json),
  });
}

const batch = (expiresAt: unknown) => post("/activation-qr-code/batch", { bookId, quantity: 1, expiresAt });

describe("a batch's expiresAt", () => {
  test("outside the years 1970 to 9999 is a 400 VALIDATION_FAILED naming the field", async () => {
    const outside = [
      "0000-01-01T00:00:00Z",
      "0001-01-01T00:00:00Z",
      "1969-12-31T23:59:59.999Z",
      "10000-01-01T00:00:00Z",
      "+010000-01-01T00:00:00.000Z",
      "-000001-01-01T00:00:00.000Z",
      // Years in range as written, out of range once the offset is applied.
      "9999-12-31T23:30:00-01:00",
      "1970-01-01T00:30:00+01:00",
      // Not RFC 3339 at all.
      "2027-12-31",
      "2027-12-31 10:00:00Z",
      "next year",
    ];
    for (const expiresAt of outside) {
      const response = await batch(expiresAt);
      expect({ expiresAt, status: response.status }).toEqual({ expiresAt, status: 400 });
      const body = (await response.json()) as { code: string; errors: { path: string }[] };
      expect(body.code).toBe("VALIDATION_FAILED");
      expect(body.errors.map((error) => error.path)).toContain("expiresAt");
    }
  });

  test("the first and the last instant of the range are taken and answered as written", async () => {
    for (const [expiresAt, answered] of [
      ["1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"],
      ["1970-01-01T01:00:00+01:00", "1970-01-01T00:00:00.000Z"],
      ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
      ["9999-12-31T22:59:59.999-01:00", "9999-12-31T23:59:59.999Z"],
    ]) {
      const response = await batch(expiresAt);
      expect({ expiresAt, status: response.status }).toEqual({ expiresAt, status: 201 });
      const [code] = (await response.json()) as { expiresAt: string }[];
      expect(code?.expiresAt).toBe(answered!);
    }
  });

  test("the OpenAPI document states the range", async () => {
    const document = (await (await fetch(`${server.url}/v3/api-docs`)).json()) as {
      components: {
        schemas: Record<string, { properties: Record<string, { pattern?: string; description?: string }> }>;
      };
    };
    const expiresAt = document.components.schemas.QrCodeBatchInput!.properties.expiresAt!;
    const pattern = new RegExp(expiresAt.pattern!);
    expect(pattern.test("1970-01-01T00:00:00Z")).toBe(true);
    expect(pattern.test("9999-12-31T23:59:59.999+01:00")).toBe(true);
    expect(pattern.test("0000-01-01T00:00:00Z")).toBe(false);
    expect(pattern.test("1969-12-31T23:59:59Z")).toBe(false);
    expect(pattern.test("10000-01-01T00:00:00Z")).toBe(false);
    expect(expiresAt.description).toContain("1970");
    expect(expiresAt.description).toContain("9999");
  });
});
