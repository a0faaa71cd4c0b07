// The audit screen (API.md §10 /console/audit, §9): the audit log newest first, filtered in the
// query string by actor, action (exact or `book.*`), record and date, paged; a wrong filter said
// beside its field (400); changes made in the console recorded as via "console". SQLite or Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeBook } from "./fixtures";
import { consoleRequest, expectLoginRedirect, signedInAdmin, textOf } from "./helpers";

describe("console audit log", () => {
  let t: TestApp;
  let cookie: string;
  let adminUuid: string;
  let bookId: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie, uuid: adminUuid } = await signedInAdmin(t));
    for (let i = 0; i < 26; i++) await makeBook(t, `Audited ${i}`);
    bookId = (await makeBook(t, "Granted in the console")).id;
    const reader = await t.user("reader@example.com");
    const granted = await consoleRequest(t, "POST", "/console/activations/new", {
      cookie,
      form: { book: String(bookId), email: reader.email },
    });
    expect(granted.status).toBe(303);
  });
  afterAll(() => t.close());

  const get = async (path: string) => {
    const response = await consoleRequest(t, "GET", path, { cookie });
    return { status: response.status, html: await response.text() };
  };

  test("no session: to the sign-in page", async () => {
    expectLoginRedirect(
      await consoleRequest(t, "GET", "/console/audit?action=book.*"),
      "/console/audit?action=book.*",
    );
  });

  test("newest first, paged", async () => {
    const first = await get("/console/audit");
    expect(first.status).toBe(200);
    const text = textOf(first.html);
    expect(text).toContain("activation.create");
    expect(text).toContain("Page 1 of 2 · 29 in all");
    expect(text.indexOf("activation.create")).toBeLessThan(text.indexOf("book.create"));
    const second = await get("/console/audit?sort=id&dir=desc&page=1");
    expect(textOf(second.html)).toContain("Page 2 of 2");
  });

  test("filters: actor, action, book.*, record, date", async () => {
    const byActor = textOf((await get(`/console/audit?actor=${adminUuid}`)).html);
    expect(byActor).toContain("activation.create");
    expect(byActor).toContain("1 in all");
    expect(byActor).toContain("via console");
    const byEmail = textOf((await get("/console/audit?actor=ADMIN%40example.com")).html);
    expect(byEmail).toContain("1 in all");
    expect(textOf((await get("/console/audit?action=book.*")).html)).toContain("27 in all");
    expect(textOf((await get("/console/audit?action=book.create")).html)).toContain("27 in all");
    const record = await get(`/console/audit?targetType=book&targetId=${bookId}`);
    expect(textOf(record.html)).toContain("1 in all");
    expect(record.html).toContain(`value="${bookId}"`);
    expect(textOf((await get("/console/audit?from=2999-01-01")).html)).toContain("No events match.");
    expect(textOf((await get("/console/audit?to=2999-01-01")).html)).toContain("29 in all");
  });

  test("a wrong filter: 400, its message beside its field, the value kept", async () => {
    const { status, html } = await get("/console/audit?action=DROP%20TABLE&from=soon");
    expect(status).toBe(400);
    expect(html).toMatch(/id="error-action">Enter an action/);
    expect(html).toMatch(/id="error-from">Enter a date/);
    expect(html).toContain('value="DROP TABLE"');
  });

  test("read only: a POST is no route (405); an unknown path: 404", async () => {
    expect((await consoleRequest(t, "POST", "/console/audit", { cookie })).status).toBe(405);
    expect((await get("/console/audit/1")).status).toBe(404);
  });
});
