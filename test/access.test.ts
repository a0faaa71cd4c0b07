// One table-driven access test over the generated OpenAPI document: every operation refuses a
// caller without credentials (401) and a caller below its level (403); a device token works only
// on the operations of its scopes (401 everywhere else). The test app mounts the test-only scoped
// operations (test/helpers/scope-probe.ts) beside the real ones.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEVICE_TOKEN_SCOPES, type DeviceTokenScope } from "../src/auth/device-token-format";
import { Activation } from "../src/routes/activations/activations.schemas";
import { Apk } from "../src/routes/apks/apks.schemas";
import { BookVersion } from "../src/routes/book-versions/book-versions.schemas";
import { Book } from "../src/routes/books/books.schemas";
import { CreatedDeviceToken } from "../src/routes/device-tokens/device-tokens.schemas";
import { fixtureBytes } from "./helpers/android-tools";
import { bodyAs, expectProblem, jsonOf } from "./helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "./helpers/test-app";
import { multipartFile } from "./helpers/zip";

interface Operation {
  method: string;
  path: string;
  level: "public" | "user" | "owner" | "entitled" | "published" | "admin";
  operationId: string;
  /** The device-token scope it declares (`x-device-token-scope`), if any. */
  scope: DeviceTokenScope | undefined;
}

const t: TestApp = await createTestApp({ scopeProbe: true });
const doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as {
  paths: Record<
    string,
    Record<
      string,
      {
        "x-access-level": Operation["level"];
        "x-device-token-scope"?: DeviceTokenScope;
        operationId: string;
        security?: Record<string, string[]>[];
        responses: Record<string, { content?: Record<string, unknown> }>;
      }
    >
  >;
};
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    level: op["x-access-level"],
    operationId: op.operationId,
    scope: op["x-device-token-scope"],
  })),
);
const basic = (login: string, password: string) =>
  `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;

/**
 * The OPDS catalog answers reading apps in their terms (README, Reading apps): its 401 is a Basic
 * challenge with the OPDS Authentication Document, as its operations declare.
 */
function answersOpdsChallenge(op: Operation): boolean {
  const declared = doc.paths[op.path]![op.method.toLowerCase()]!.responses["401"]?.content ?? {};
  return "application/opds-authentication+json" in declared;
}

function expectOpdsChallenge(response: Response): void {
  expect(response.status).toBe(401);
  expect(response.headers.get("content-type")).toBe("application/opds-authentication+json");
  expect(response.headers.get("www-authenticate")).toBe('Basic realm="bookdist"');
  expect(response.headers.get("link")).toContain('rel="http://opds-spec.org/auth/document"');
}

describe("access levels", () => {
  let reader: { token: string; uuid: string; email: string };
  /** A device token of the reader's with every scope, and for each scope one with all the others. */
  let everyScope: string;
  const lacking = {} as Record<DeviceTokenScope, string>;
  let bookId: number;
  let versionId: number;
  /** An APK that is not active (and has no file): what `published` routes must guard. */
  let apkId: number;
  let activeApkId: number;
  beforeAll(async () => {
    const admin = await t.admin();
    reader = await t.user();
    const makeToken = async (scopes: readonly DeviceTokenScope[]) => {
      const response = await t.call("POST", "/authentication/device-token", {
        token: reader.token,
        json: { name: scopes.join("+"), password: TEST_PASSWORD, scopes },
      });
      return (await bodyAs(response, CreatedDeviceToken)).token;
    };
    everyScope = await makeToken(DEVICE_TOKEN_SCOPES);
    for (const scope of DEVICE_TOKEN_SCOPES)
      lacking[scope] = await makeToken(DEVICE_TOKEN_SCOPES.filter((other) => other !== scope));
    const created = await t.call("POST", "/book", { token: admin.token, json: { title: "Access test" } });
    bookId = (await bodyAs(created, Book)).id;
    const version = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId, versionCode: 1, versionName: "1.0" },
    });
    versionId = (await bodyAs(version, BookVersion)).id;
    const apk = await t.call("POST", "/apk", {
      token: admin.token,
      json: { kind: "launcher", versionCode: 1, versionName: "1.0" },
    });
    apkId = (await bodyAs(apk, Apk)).id;
    const active = await t.call("POST", "/apk", {
      token: admin.token,
      json: { kind: "bookapp", versionCode: 10, versionName: "1.0" },
    });
    activeApkId = (await bodyAs(active, Apk)).id;
    const uploaded = await t.call("POST", `/apk/${activeApkId}/upload`, {
      token: admin.token,
      body: multipartFile(fixtureBytes("tinyapp-v2-rsa2048.apk")),
    });
    if (uploaded.status !== 200) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
    await t.call("PUT", `/apk/${activeApkId}`, {
      token: admin.token,
      json: { kind: "bookapp", versionCode: 10, versionName: "1.0", active: true },
    });
  });
  afterAll(() => t.close());

  /** A concrete URL for a documented path: existing ids, and someone else's uuid. */
  const urlOf = (path: string) =>
    path
      .replace(
        "{id}",
        String(
          path.startsWith("/bookversion/")
            ? versionId
            : path.startsWith("/apk/")
              ? apkId
              : // No token of the reader's: were a DELETE ever let through, it would revoke none of the tokens used here.
                path.startsWith("/authentication/device-token/")
                ? 999_999
                : bookId,
        ),
      )
      .replace("{bookId}", String(bookId))
      .replace("{userUUID}", "00000000-0000-4000-8000-000000000000");

  test("every operation declares its level and matching security", () => {
    expect(operations.length).toBeGreaterThan(0);
    for (const op of operations) {
      expect(["public", "user", "owner", "entitled", "published", "admin"]).toContain(op.level);
      const security = doc.paths[op.path]![op.method.toLowerCase()]!.security ?? [];
      expect(security.length === 0).toBe(op.level === "public");
    }
  });

  test("the operations beside the console (API.md §10) are admin-only", () => {
    const levelOf = (method: string, path: string) =>
      operations.find((op) => op.method === method && op.path === path)?.level;
    for (const [method, path] of [
      ["GET", "/user"],
      ["GET", "/user/{userUUID}"],
      ["POST", "/apk/upload"],
      ["POST", "/apk/{id}/activate"],
      ["GET", "/activation"],
      ["GET", "/activation-qr-code"],
    ] as const) {
      expect(levelOf(method, path), `${method} ${path}`).toBe("admin");
    }
  });

  test("the document declares each device-token scope with its security alternative, and only there", () => {
    expect(operations.filter((op) => op.scope).length).toBeGreaterThanOrEqual(DEVICE_TOKEN_SCOPES.length);
    for (const op of operations) {
      const security = doc.paths[op.path]![op.method.toLowerCase()]!.security ?? [];
      const tokenAlternatives = security.filter((alternative) => "deviceTokenAuth" in alternative);
      expect(tokenAlternatives, `${op.method} ${op.path}`).toEqual(
        op.scope ? [{ deviceTokenAuth: [op.scope] }] : [],
      );
    }
  });

  test.each(operations.filter((op) => op.level !== "public" && op.scope === undefined))(
    "$method $path ($level) → 401 for a device token with every scope (the operation has none)",
    async (op) => {
      const response = await t.call(op.method, urlOf(op.path), {
        headers: { Authorization: basic(reader.email, everyScope) },
      });
      await expectProblem(response, 401, "AUTHENTICATION_FAILED");
    },
  );

  test.each(operations.filter((op) => op.scope !== undefined))(
    "$method $path ($scope) → 401 for a device token without its scope, served with it",
    async (op) => {
      const without = await t.call(op.method, urlOf(op.path), {
        headers: { Authorization: basic(reader.email, lacking[op.scope!]) },
      });
      if (answersOpdsChallenge(op)) expectOpdsChallenge(without);
      else await expectProblem(without, 401, "AUTHENTICATION_FAILED");
      const withIt = await t.call(op.method, urlOf(op.path), {
        headers: { Authorization: basic(reader.email, everyScope) },
      });
      expect(withIt.status).not.toBe(401);
      expect(withIt.status).toBeLessThan(500);
    },
  );

  test.each(operations.filter((op) => op.level !== "public"))(
    "$method $path ($level) → 401 without credentials",
    async (op) => {
      const response = await t.call(op.method, urlOf(op.path));
      if (answersOpdsChallenge(op)) {
        expectOpdsChallenge(response);
        return;
      }
      expect(response.headers.get("content-type")).toBe("application/problem+json; charset=UTF-8");
      await expectProblem(response, 401, "UNAUTHORIZED");
    },
  );

  const belowLevel = operations.filter(
    (op) =>
      op.level === "admin" ||
      op.level === "entitled" ||
      op.level === "published" ||
      (op.level === "owner" && op.path.includes("{userUUID}")),
  );
  /**
   * Operations whose level is decided by the handler after the body is validated (`entitled`
   * with a body): a valid body, so that the 403 is the level's and not a 400.
   */
  const validBodies: Record<string, unknown> = {
    "PUT /book/{id}/progress": { percentage: 0.5, device: "access test", modified: "2026-11-21T10:00:00Z" },
  };
  test.each(belowLevel)("$method $path ($level) → 403 for a plain user", async (op) => {
    const response = await t.call(op.method, urlOf(op.path), {
      token: reader.token,
      json: validBodies[`${op.method} ${op.path}`],
    });
    await expectProblem(response, 403, "FORBIDDEN");
  });

  test("owner by record: another user's activation → 403 for a plain user; its owner and admins read it", async () => {
    const admin = await t.admin();
    const owner = await t.user();
    const created = await t.call("POST", "/activation", {
      token: admin.token,
      json: { bookId, userUuid: owner.uuid },
    });
    expect(created.status).toBe(201);
    const url = `/activation/${(await bodyAs(created, Activation)).id}`;
    const refused = await t.call("GET", url, { token: reader.token });
    await expectProblem(refused, 403, "FORBIDDEN");
    expect((await t.call("GET", url, { token: owner.token })).status).toBe(200);
    expect((await t.call("GET", url, { token: admin.token })).status).toBe(200);
  });

  const gets = operations.filter((op) => op.method === "GET");
  test.each(gets)("HEAD $path answers as GET does, without a body ($level)", async (op) => {
    const admin = await t.admin();
    // The active APK, so that the published download is served rather than refused.
    const url = op.path === "/apk/{id}/download" ? `/apk/${activeApkId}/download` : urlOf(op.path);
    const token = op.level === "public" ? undefined : admin.token;
    const get = await t.call("GET", url, { token });
    await get.arrayBuffer();
    const head = await t.call("HEAD", url, { token });
    expect(get.status).toBeLessThan(500);
    expect(head.status).toBe(get.status);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  test("published: an active APK's file is public (even past a stale token); any other is admin-only", async () => {
    const published = operations.filter((op) => op.level === "published");
    expect(published.map((op) => `${op.method} ${op.path}`)).toEqual(["GET /apk/{id}/download"]);
    const url = (id: number) => `/apk/${id}/download`;
    expect((await t.call("GET", url(activeApkId))).status).toBe(200);
    expect((await t.call("GET", url(activeApkId), { token: reader.token })).status).toBe(200);
    expect((await t.call("GET", url(activeApkId), { token: "not-a-token" })).status).toBe(200);
    // Not active, or no such APK: the same answers, so ids cannot be probed.
    for (const id of [apkId, 999_999]) {
      await expectProblem(await t.call("GET", url(id)), 401, "UNAUTHORIZED");
      await expectProblem(await t.call("GET", url(id), { token: reader.token }), 403, "FORBIDDEN");
      await expectProblem(
        await t.call("GET", url(id), { token: "not-a-token" }),
        401,
        "AUTHENTICATION_FAILED",
      );
    }
    const admin = await t.admin();
    expect((await t.call("GET", url(999_999), { token: admin.token })).status).toBe(404);
    // The document says so: anonymous access is one of the alternatives.
    expect(doc.paths["/apk/{id}/download"]!.get!.security).toContainEqual({});
  });

  test.each(operations.filter((op) => op.level === "public"))("$method $path is public", async (op) => {
    const response = await t.call(op.method, urlOf(op.path));
    expect([401, 403]).not.toContain(response.status);
  });
});
