// API.md §1: with Accept: application/hal+json "every resource object gains _links" — the answers
// of uploads and deletes too, not only reads and creates.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../helpers/android-tools";
import { bodyOf, createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const HAL = { Accept: "application/hal+json" };

describe("uploads and deletes answer HAL when asked for it", () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await createTestApp();
    token = (await t.admin()).token;
  });
  afterAll(() => t.close());

  const call = (method: string, path: string, options: { json?: unknown; body?: FormData } = {}) =>
    t.call(method, path, { token, headers: HAL, ...options });
  const create = async (path: string, json: unknown) => {
    const response = await t.call("POST", path, { token, json });
    expect(response.status).toBe(201);
    return (await bodyOf(response)).id as number;
  };

  async function expectHal(response: Response, self: string): Promise<void> {
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    expect((await bodyOf(response))._links.self).toEqual({ href: `${self}` });
  }

  test("book version: archive upload and delete", async () => {
    const bookId = await create("/book", { title: "Linked" });
    const id = await create("/bookversion", { bookId, versionCode: 1, versionName: "1.0" });
    const archive = makeZip({ "book/chapter1.html": "<h1>One</h1>" });
    await expectHal(
      await call("POST", `/bookversion/${id}/upload`, {
        body: multipartFile(archive, { filename: "b.zip" }),
      }),
      `/bookversion/${id}`,
    );
    await expectHal(await call("DELETE", `/bookversion/${id}`), `/bookversion/${id}`);
  });

  test("APK: file upload and delete", async () => {
    // tinyapp-v2-rsa2048.apk says versionCode 10 (test/fixtures/apk/expected.json).
    const apk = readFileSync(join(FIXTURES, "tinyapp-v2-rsa2048.apk"));
    const id = await create("/apk", { kind: "launcher", versionCode: 10, versionName: "1.0" });
    await expectHal(
      await call("POST", `/apk/${id}/upload`, { body: multipartFile(apk, { filename: "a.apk" }) }),
      `/apk/${id}`,
    );
    await expectHal(await call("DELETE", `/apk/${id}`), `/apk/${id}`);
  });

  test("activation: delete", async () => {
    const bookId = await create("/book", { title: "Lent" });
    const reader = await t.user("hal-reader@example.com");
    const id = await create("/activation", { bookId, userUuid: reader.uuid });
    await expectHal(await call("DELETE", `/activation/${id}`), `/activation/${id}`);
  });
});
