// HAL: with Accept: application/hal+json "every resource object gains _links" — the answers
// of uploads and deletes too, not only reads and creates.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import type { Link } from "../../src/http/hal";
import { ActivationResource } from "../../src/routes/activations/activations.schemas";
import { ApkResource } from "../../src/routes/apks/apks.schemas";
import { BookVersionResource } from "../../src/routes/book-versions/book-versions.schemas";
import { BookResource } from "../../src/routes/books/books.schemas";
import { FIXTURES } from "../helpers/android-tools";
import { bodyAs } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
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
  // The resource gives the schemas its answers are checked against: plain JSON when created, HAL after.
  const create = async (resource: { schema: z.ZodType<{ id: number }> }, path: string, json: unknown) => {
    const response = await t.call("POST", path, { token, json });
    expect(response.status).toBe(201);
    return (await bodyAs(response, resource.schema)).id;
  };

  async function expectHal(
    resource: { hal: z.ZodType<{ _links: { self: Link } }> },
    response: Response,
    self: string,
  ): Promise<void> {
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    expect((await bodyAs(response, resource.hal))._links.self).toEqual({ href: `${self}` });
  }

  test("book version: archive upload and delete", async () => {
    const bookId = await create(BookResource, "/book", { title: "Linked" });
    const id = await create(BookVersionResource, "/bookversion", {
      bookId,
      versionCode: 1,
      versionName: "1.0",
    });
    const archive = makeZip({ "book/chapter1.html": "<h1>One</h1>" });
    await expectHal(
      BookVersionResource,
      await call("POST", `/bookversion/${id}/upload`, {
        body: multipartFile(archive, { filename: "b.zip" }),
      }),
      `/bookversion/${id}`,
    );
    await expectHal(BookVersionResource, await call("DELETE", `/bookversion/${id}`), `/bookversion/${id}`);
  });

  test("APK: file upload and delete", async () => {
    // tinyapp-v2-rsa2048.apk says versionCode 10 (test/fixtures/apk/expected.json).
    const apk = readFileSync(join(FIXTURES, "tinyapp-v2-rsa2048.apk"));
    const id = await create(ApkResource, "/apk", { kind: "launcher", versionCode: 10, versionName: "1.0" });
    await expectHal(
      ApkResource,
      await call("POST", `/apk/${id}/upload`, { body: multipartFile(apk, { filename: "a.apk" }) }),
      `/apk/${id}`,
    );
    await expectHal(ApkResource, await call("DELETE", `/apk/${id}`), `/apk/${id}`);
  });

  test("activation: delete", async () => {
    const bookId = await create(BookResource, "/book", { title: "Lent" });
    const reader = await t.user("hal-reader@example.com");
    const id = await create(ActivationResource, "/activation", { bookId, userUuid: reader.uuid });
    await expectHal(ActivationResource, await call("DELETE", `/activation/${id}`), `/activation/${id}`);
  });
});
