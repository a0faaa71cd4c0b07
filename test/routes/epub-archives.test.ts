// EPUB recognition through the real API: each fixture uploaded as a book version's archive comes
// back with archive.format and archive.epub, and downloads with application/zip (the original
// interface's type) under a `.epub` name; a zip that only pretends is a zip, named `.zip`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { testDialect } from "../helpers/databases";
import { buildEpub } from "../helpers/epub";
import { bodyAs } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

describe(`EPUB archives through the API (${testDialect})`, () => {
  let t: TestApp;
  let admin: { token: string };
  let versionCode = 0;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
  });
  afterAll(() => t.close());

  /** A book titled `title`, a version of it, `bytes` uploaded as its archive: the answer. */
  async function upload(title: string, bytes: Uint8Array) {
    const book = await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title } }), Book);
    const created = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId: book.id, versionCode: ++versionCode, versionName: "1.0" },
    });
    const version = await bodyAs(created, BookVersion);
    const response = await t.call("POST", `/bookversion/${version.id}/upload`, {
      token: admin.token,
      body: multipartFile(bytes, { filename: "upload.bin" }),
    });
    expect(response.status).toBe(200);
    return { book, version: await bodyAs(response, BookVersion) };
  }

  /** Both API downloads of the version (by id and as the book's newest), GET and HEAD. */
  async function downloads(bookId: number, versionId: number) {
    const answers: Response[] = [];
    for (const method of ["GET", "HEAD"] as const) {
      answers.push(await t.call(method, `/bookversion/${versionId}/download`, { token: admin.token }));
      answers.push(await t.call(method, `/book/${bookId}/newest-book-version`, { token: admin.token }));
    }
    return answers;
  }

  test("an EPUB 3: format epub, its metadata, downloads as application/zip named .epub", async () => {
    const bytes = buildEpub("epub3");
    const { book, version } = await upload("Little Test", bytes);
    expect(version.archive).toMatchObject({
      size: bytes.byteLength,
      filename: "upload.bin",
      format: "epub",
      epub: {
        title: "The Little Test Book",
        creators: ["Ada Lovelace", "Charles Babbage"],
        language: "en",
        identifier: "urn:uuid:6f1c2d3e-4a5b-4c6d-8e7f-901234567890",
        modified: "2026-11-01T10:00:00Z",
      },
    });
    // The record reads back the same.
    const again = await bodyAs(
      await t.call("GET", `/bookversion/${version.id}`, { token: admin.token }),
      BookVersion,
    );
    expect(again.archive).toEqual(version.archive);
    for (const response of await downloads(book.id, version.id)) {
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/zip");
      expect(response.headers.get("content-disposition")).toBe(
        `attachment; filename="Little Test-1.0.epub"; filename*=UTF-8''Little%20Test-1.0.epub`,
      );
    }
    const body = await t.call("GET", `/bookversion/${version.id}/download`, { token: admin.token });
    expect(new Uint8Array(await body.arrayBuffer())).toEqual(bytes);
  });

  test("an EPUB 2: modified null", async () => {
    const { version } = await upload("Pride", buildEpub("epub2"));
    expect(version.archive?.format).toBe("epub");
    expect(version.archive?.epub).toEqual({
      title: "Pride & Prejudice",
      creators: ["Jane Austen"],
      language: "en-GB",
      identifier: "urn:uuid:0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
      modified: null,
    });
  });

  test("non-ASCII metadata, and a non-ASCII title's .epub name in filename*", async () => {
    const title = "Žluťoučký kůň";
    const { book, version } = await upload(title, buildEpub("unicode"));
    expect(version.archive?.epub).toMatchObject({
      title: "Žluťoučký kůň — Ünïcødé",
      creators: ["村上 春樹", "Dvořák & <Syn>"],
      language: "cs",
    });
    for (const response of await downloads(book.id, version.id)) {
      expect(response.headers.get("content-type")).toBe("application/zip");
      const disposition = response.headers.get("content-disposition") ?? "";
      expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(`${title}-1.0.epub`)}`);
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+\.epub"; /);
    }
  });

  test("a compressed mimetype is taken leniently", async () => {
    const { version } = await upload("Lenient", buildEpub("epub3", { compressMimetype: true }));
    expect(version.archive?.format).toBe("epub");
    expect(version.archive?.epub?.title).toBe("The Little Test Book");
  });

  const pretenders: [string, Uint8Array][] = [
    ["a plain zip", makeZip({ "book/chapter1.html": "<h1>One</h1>" })],
    ["no container.xml", buildEpub("epub3", { replace: { "META-INF/container.xml": null } })],
    ["a missing package document", buildEpub("epub3", { replace: { "EPUB/package.opf": null } })],
    ["broken XML", buildEpub("epub3", { replace: { "EPUB/package.opf": "<package" } })],
  ];
  for (const [what, bytes] of pretenders) {
    test(`${what}: accepted as a zip, epub null, named .zip`, async () => {
      const { book, version } = await upload("Plain", bytes);
      expect(version.archive).toMatchObject({ format: "zip", epub: null });
      expect(Object.keys(version.archive ?? {})).toContain("epub");
      for (const response of await downloads(book.id, version.id)) {
        expect(response.headers.get("content-type")).toBe("application/zip");
        expect(response.headers.get("content-disposition")).toContain(`filename="Plain-1.0.zip"`);
      }
    });
  }

  test("a new archive replaces the recognition: an EPUB version given a plain zip is a zip", async () => {
    const { version } = await upload("Replaced", buildEpub("epub3"));
    const response = await t.call("POST", `/bookversion/${version.id}/upload`, {
      token: admin.token,
      body: multipartFile(makeZip({ "a.txt": "a" })),
    });
    expect((await bodyAs(response, BookVersion)).archive).toMatchObject({ format: "zip", epub: null });
  });
});
