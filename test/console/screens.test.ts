// The screens of the console's core (README "Console"): each one's 200, 303, 400/409, 403 and 404
// answers over the in-process app, on SQLite or, with TEST_DATABASE_URL, Postgres. Changes are
// checked in the store (and the audit log: via "console"), not only in the page.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makePng } from "../helpers/png";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip } from "../helpers/zip";
import { consoleRequest, expectLoginRedirect, signedInAdmin, textOf } from "./helpers";

describe("console screens", () => {
  let t: TestApp;
  let cookie: string;
  const get = (path: string) => consoleRequest(t, "GET", path, { cookie });
  const post = (path: string, form: Record<string, string>, headers?: Record<string, string>) =>
    consoleRequest(t, "POST", path, { cookie, form, headers });
  const upload = (path: string, name: string, bytes: Uint8Array<ArrayBuffer>, type: string) => {
    const body = new FormData();
    body.append("file", new File([bytes], name, { type }));
    return consoleRequest(t, "POST", path, { cookie, body });
  };
  const idFrom = (response: Response, pattern: RegExp) =>
    Number(pattern.exec(response.headers.get("location") ?? "")?.[1]);

  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
  });
  afterAll(() => t.close());

  test("every screen: 303 to the sign-in page without a session", async () => {
    for (const path of [
      "/console",
      "/console/books",
      "/console/books/new",
      "/console/books/1",
      "/console/print-runs",
      "/console/print-runs/1",
      "/console/books/1/print-runs/new",
      "/console/system",
    ]) {
      expectLoginRedirect(await consoleRequest(t, "GET", path), path);
    }
    const post = await consoleRequest(t, "POST", "/console/books/new", { form: { title: "X" } });
    expectLoginRedirect(post, "/console/books/new");
  });

  test("books: create (errors beside fields, values kept), read, edit, delete after confirming", async () => {
    expect((await get("/console/books")).status).toBe(200);
    const form = await get("/console/books/new");
    expect(form.status).toBe(200);
    const formHtml = await form.text();
    for (const label of ["Title", "Author", "ISBN", "Language", "Description"]) {
      expect(formHtml).toMatch(new RegExp(`<label for="field-[a-z]+">${label}`));
    }

    const invalid = await post("/console/books/new", {
      title: "",
      author: "Ann Author",
      isbn: "978-0-00-000000-1",
      language: "en",
      description: "kept text",
    });
    expect(invalid.status).toBe(400);
    const invalidHtml = await invalid.text();
    expect(invalidHtml).toContain('<p class="field-error" id="error-title">required</p>');
    expect(invalidHtml).toContain('id="error-isbn"');
    expect(invalidHtml).toContain('value="Ann Author"');
    expect(invalidHtml).toContain("kept text</textarea>");
    expect(await t.deps.db.orm.select().from(t.deps.db.tables.book)).toHaveLength(0);

    const created = await post("/console/books/new", {
      title: "Tea Garden",
      author: "Ann Author",
      isbn: "",
      language: "en",
      description: "",
    });
    expect(created.status).toBe(303);
    const id = idFrom(created, /^\/console\/books\/(\d+)\?done=book-created$/);
    expect(id).toBeGreaterThan(0);
    const events = await t.call("GET", `/audit-event?action=book.create`, { token: (await t.admin()).token });
    const [event] = (await events.json()) as { actor: { via: string } }[];
    expect(event?.actor.via).toBe("console");

    const shown = await get(`/console/books/${id}?done=book-created`);
    expect(shown.status).toBe(200);
    const shownText = textOf(await shown.text());
    expect(shownText).toContain("The book was created.");
    expect(shownText).toContain("Tea Garden");

    const found = textOf(await (await get("/console/books?q=Tea")).text());
    expect(found).toContain("Tea Garden");
    expect(textOf(await (await get("/console/books?q=Coffee")).text())).toContain("No book matches.");

    const edited = await post(`/console/books/${id}`, {
      title: "Tea Garden, 2nd ed.",
      author: "Ann Author",
      isbn: "",
      language: "en",
      description: "",
    });
    expect(edited.status).toBe(303);
    expect(
      (
        (await (await t.call("GET", `/book/${id}`, { token: (await t.admin()).token })).json()) as {
          title: string;
        }
      ).title,
    ).toBe("Tea Garden, 2nd ed.");
    const badEdit = await post(`/console/books/${id}`, { title: "x".repeat(301), language: "not a tag!!" });
    expect(badEdit.status).toBe(400);
    expect(await badEdit.text()).toContain('id="error-language"');

    for (const path of [
      "/console/books/999999",
      "/console/books/abc",
      "/console/books/0",
      "/console/books/999999/delete",
    ]) {
      expect([path, (await get(path)).status]).toEqual([path, 404]);
    }

    const confirm = await get(`/console/books/${id}/delete`);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toMatch(/<button type="submit" class="button danger">Delete<\/button>/);
    // A cross-site POST deletes nothing.
    const forged = await consoleRequest(t, "POST", `/console/books/${id}/delete`, {
      cookie,
      form: {},
      headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(forged.status).toBe(403);
    expect((await get(`/console/books/${id}`)).status).toBe(200);

    // A book readers hold: 409, explained.
    const reader = await t.user();
    await t.call("POST", "/activation", {
      token: (await t.admin()).token,
      json: { bookId: id, userUuid: reader.uuid },
    });
    const held = await post(`/console/books/${id}/delete`, {});
    expect(held.status).toBe(409);
    expect(textOf(await held.text())).toContain("1 reader holds this book. Revoke their activations first");
    const [activation] = (await (
      await t.call("GET", `/book/${id}/activations`, { token: (await t.admin()).token })
    ).json()) as { id: number }[];
    await t.call("DELETE", `/activation/${activation?.id}`, { token: (await t.admin()).token });
    const deleted = await post(`/console/books/${id}/delete`, {});
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get("location")).toBe("/console/books?done=book-deleted");
    expect((await get(`/console/books/${id}`)).status).toBe(404);
  });

  test("cover and versions: upload, duplicate version code explained, archive with EPUB metadata", async () => {
    const created = await post("/console/books/new", { title: "Covered" });
    const id = idFrom(created, /^\/console\/books\/(\d+)/);
    const png = makePng({ width: 4, height: 6, colorType: 2, bitDepth: 8 });
    const cover = await upload(`/console/books/${id}/cover`, "cover.png", png, "image/png");
    expect(cover.status).toBe(303);
    // The preview comes from the console's own origin (its CSP admits no other for images, and
    // /book/{id}/cover may redirect to the bucket), streamed with the console's headers.
    const bookHtml = await get(`/console/books/${id}`).then((r) => r.text());
    const src = /<img class="cover-preview" src="([^"]+)"/.exec(bookHtml)?.[1] ?? "";
    expect(src).toStartWith(`/console/books/${id}/cover?v=`);
    const preview = await get(src);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-type")).toBe("image/png");
    expect(preview.headers.get("cache-control")).toBe("no-store");
    expect(preview.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(new Uint8Array(await preview.arrayBuffer())).toEqual(png);
    expectLoginRedirect(
      await consoleRequest(t, "GET", `/console/books/${id}/cover`),
      `/console/books/${id}/cover`,
    );
    const notPng = await upload(
      `/console/books/${id}/cover`,
      "cover.png",
      new TextEncoder().encode("not a png"),
      "image/png",
    );
    expect(notPng.status).toBe(415);
    expect(await notPng.text()).toMatch(/<p class="field-error" id="error-file">[^<]+<\/p>/);

    const version = await post(`/console/books/${id}/versions`, {
      versionCode: "3",
      versionName: "3.0",
      releaseNotes: "",
    });
    expect(version.status).toBe(303);
    const duplicate = await post(`/console/books/${id}/versions`, {
      versionCode: "3",
      versionName: "again",
      releaseNotes: "notes kept",
    });
    expect(duplicate.status).toBe(409);
    const duplicateHtml = await duplicate.text();
    expect(textOf(duplicateHtml)).toContain(
      "Version code 3 is taken by another version of this book; choose a higher one.",
    );
    expect(duplicateHtml).toContain("notes kept</textarea>");
    const invalid = await post(`/console/books/${id}/versions`, { versionCode: "zero", versionName: "" });
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain('id="error-versionName"');

    const page = await (await get(`/console/books/${id}`)).text();
    const versionId = Number(/\/versions\/(\d+)\/archive/.exec(page)?.[1]);
    const zip = makeZip({ "book/chapter1.html": "<p>hello</p>" });
    const archive = await upload(
      `/console/books/${id}/versions/${versionId}/archive`,
      "book.zip",
      zip,
      "application/zip",
    );
    expect(archive.status).toBe(303);
    expect(textOf(await (await get(`/console/books/${id}`)).text())).toContain("book.zip");
    // A download is counted on the dashboard's chart of the day (a write of its own, after the answer).
    const download = await t.call("GET", `/bookversion/${versionId}/download`, {
      token: (await t.admin()).token,
    });
    expect(download.status).toBe(200);
    await download.arrayBuffer();
    await Bun.sleep(50);
    expect(textOf(await (await get("/console")).text())).toContain(
      "Downloads per day (archives and APKs): 1 in 30 days",
    );
    const wrongBook = await upload(
      `/console/books/999999/versions/${versionId}/archive`,
      "book.zip",
      zip,
      "application/zip",
    );
    expect(wrongBook.status).toBe(404);
  });

  test("print runs: make one, CSV and PDF, disable after confirming, enable", async () => {
    const created = await post("/console/books/new", { title: "Printed" });
    const bookId = idFrom(created, /^\/console\/books\/(\d+)/);
    const form = await get(`/console/books/${bookId}/print-runs/new`);
    expect(form.status).toBe(200);
    const formHtml = await form.text();
    for (const label of ["Quantity", "Activations per code", "Label", "Expires"])
      expect(formHtml).toContain(`>${label}`);
    const invalid = await post(`/console/books/${bookId}/print-runs/new`, {
      quantity: "0",
      maxActivations: "1",
      label: "kept label",
      expiresAt: "",
    });
    expect(invalid.status).toBe(400);
    const invalidHtml = await invalid.text();
    expect(invalidHtml).toContain('id="error-quantity"');
    expect(invalidHtml).toContain('value="kept label"');
    expect((await get("/console/books/999999/print-runs/new")).status).toBe(404);

    const made = await post(`/console/books/${bookId}/print-runs/new`, {
      quantity: "12",
      maxActivations: "2",
      label: "First print",
      expiresAt: "2030-01-31",
    });
    expect(made.status).toBe(303);
    const batchId = idFrom(made, /^\/console\/print-runs\/(\d+)\?done=print-run-created$/);
    const detail = textOf(await (await get(`/console/print-runs/${batchId}`)).text());
    expect(detail).toContain("Codes 12");
    expect(detail).toContain("Unused 12");
    expect(detail).toContain("2030-01-31 23:59");
    expect(textOf(await (await get("/console/print-runs")).text())).toContain("First print");

    const csv = await get(`/console/print-runs/${batchId}/codes.csv`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toStartWith("text/csv");
    expect(csv.headers.get("cache-control")).toBe("no-store");
    expect((await csv.text()).trim().split("\n")).toHaveLength(13);
    const pdf = await get(`/console/print-runs/${batchId}/sheet.pdf?paper=A4&columns=3&rows=4&symbolMm=30`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(new TextDecoder().decode((await pdf.arrayBuffer()).slice(0, 5))).toBe("%PDF-");
    const badLayout = await get(
      `/console/print-runs/${batchId}/sheet.pdf?paper=A4&columns=40&rows=40&symbolMm=30`,
    );
    expect(badLayout.status).toBe(400);

    const confirm = await get(`/console/print-runs/${batchId}/disable`);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain(">Disable</button>");
    const disabled = await post(`/console/print-runs/${batchId}/disable`, {});
    expect(disabled.status).toBe(303);
    expect(textOf(await (await get(`/console/print-runs/${batchId}`)).text())).toContain("Disabled 12");
    const enabled = await post(`/console/print-runs/${batchId}/enable`, {});
    expect(enabled.status).toBe(303);
    expect(textOf(await (await get(`/console/print-runs/${batchId}`)).text())).toContain("Disabled 0");
    expect((await get("/console/print-runs/999999")).status).toBe(404);
    expect((await post("/console/print-runs/999999/enable", {})).status).toBe(404);
  });

  test("dashboard: counters, charts with a text alternative; system", async () => {
    const admin = await t.admin();
    const book = (await (
      await t.call("POST", "/book", { token: admin.token, json: { title: "Counted" } })
    ).json()) as { id: number };
    const [code] = (await (
      await t.call("POST", "/activation-qr-code/batch", {
        token: admin.token,
        json: { bookId: book.id, quantity: 2 },
      })
    ).json()) as { code: string }[];
    const reader = await t.user();
    expect(
      (await t.call("POST", "/activation/by-qr-code", { token: reader.token, json: { code: code?.code } }))
        .status,
    ).toBe(201);
    await t.call("POST", "/activation", {
      token: admin.token,
      json: { bookId: book.id, userUuid: (await t.user()).uuid },
    });
    const response = await get("/console");
    expect(response.status).toBe(200);
    const html = await response.text();
    const text = textOf(html);
    expect(text).toMatch(/1 Codes redeemed/);
    expect(text).toMatch(/1 … by code/);
    expect(text).toMatch(/1 … by hand/);
    expect(html).toContain('<svg class="chart"');
    expect(html).toContain("Activations per day by source as a table");
    // Today's row of the text alternative: made that day (the other test's revoked activation too).
    expect(text).toContain("2026-11-21 1 0 2");
    expect((await get("/console?days=90")).status).toBe(200);
    expect(textOf(await (await get("/console?days=90")).text())).toContain("The last 90 days");
    const system = await get("/console/system");
    expect(system.status).toBe(200);
    expect(textOf(await system.text())).toContain("Version 1.0.0");
  });
});
