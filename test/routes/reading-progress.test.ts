// GET/PUT /book/{id}/progress (README "Reading progress"): one position per (user, book); 204
// before the first write; the Locator and percentage validated and read back; an older
// `modified` is 409 and leaves the stored position; a `modified` ahead of the clock is taken as
// now; a session or a device token with `sync` (not another scope); the book held or 403, there
// or 404; positions of two users and two books kept apart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ReadingProgress } from "../../src/routes/reading-progress/reading-progress.schemas";
import { testDialect } from "../helpers/databases";
import { basicAuth, bookWithArchive, deviceToken, grantBook } from "../helpers/reading-books";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

describe(`reading progress through the API (${testDialect})`, () => {
  let t: TestApp;
  let reader: { token: string; uuid: string; email: string };
  let bookId: number;
  let otherBookId: number;
  const locator = {
    href: "OEBPS/chapter-03.xhtml",
    type: "application/xhtml+xml",
    title: "Chapter 3",
    locations: { progression: 0.25, totalProgression: 0.31, position: 57 },
    text: { before: "It was a ", highlight: "dark and stormy", after: " night" },
  };
  const put = (id: number, json: unknown, auth: { token?: string; headers?: Record<string, string> }) =>
    t.call("PUT", `/book/${id}/progress`, { ...auth, json });

  beforeAll(async () => {
    t = await createTestApp();
    reader = await t.user();
    bookId = (await bookWithArchive(t, "Progress book")).bookId;
    otherBookId = (await bookWithArchive(t, "Second progress book")).bookId;
    await grantBook(t, bookId, reader.uuid);
    await grantBook(t, otherBookId, reader.uuid);
  });
  afterAll(() => t.close());

  test("204 before the first write; a PUT then a GET read the same position back", async () => {
    const none = await t.call("GET", `/book/${bookId}/progress`, { token: reader.token });
    expect(none.status).toBe(204);
    expect(await none.text()).toBe("");
    t.clock.set("2026-11-21T10:00:00.000Z");
    const written = await put(
      bookId,
      { percentage: 0.31, locator, device: "Thorium on the laptop", modified: "2026-11-21T09:59:30+00:00" },
      { token: reader.token },
    );
    const expected = {
      bookId,
      versionId: null,
      percentage: 0.31,
      locator,
      koreader: null,
      device: "Thorium on the laptop",
      updatedAt: "2026-11-21T09:59:30.000Z",
    };
    expect(await bodyAs(written, ReadingProgress)).toEqual(expected);
    const read = await t.call("GET", `/book/${bookId}/progress`, { token: reader.token });
    expect(await bodyAs(read, ReadingProgress)).toEqual(expected);
    // The other book has its own row, still none.
    expect((await t.call("GET", `/book/${otherBookId}/progress`, { token: reader.token })).status).toBe(204);
  });

  test("an older modified → 409 CONFLICT, the stored position stays; the same one again is taken", async () => {
    const stale = await put(
      bookId,
      { percentage: 0.1, device: "the phone", modified: "2026-11-21T09:00:00.000Z" },
      { token: reader.token },
    );
    await expectProblem(stale, 409, "CONFLICT");
    const read = await bodyAs(
      await t.call("GET", `/book/${bookId}/progress`, { token: reader.token }),
      ReadingProgress,
    );
    expect(read).toMatchObject({ percentage: 0.31, device: "Thorium on the laptop" });
    // A retry of the stored write (the same modified) is no conflict.
    const again = await put(
      bookId,
      { percentage: 0.32, locator, device: "Thorium on the laptop", modified: "2026-11-21T09:59:30.000Z" },
      { token: reader.token },
    );
    expect(again.status).toBe(200);
  });

  test("a modified ahead of the clock is taken as now, so it holds no other device off", async () => {
    t.clock.set("2026-11-21T11:00:00.000Z");
    const ahead = await put(
      bookId,
      { percentage: 0.4, device: "fast clock", modified: "2026-12-31T00:00:00.000Z" },
      { token: reader.token },
    );
    expect((await bodyAs(ahead, ReadingProgress)).updatedAt).toBe("2026-11-21T11:00:00.000Z");
    t.clock.set("2026-11-21T11:01:00.000Z");
    const next = await put(
      bookId,
      { percentage: 0.41, device: "the phone", modified: "2026-11-21T11:00:30.000Z" },
      { token: reader.token },
    );
    expect(await bodyAs(next, ReadingProgress)).toMatchObject({ percentage: 0.41, locator: null });
  });

  test("a device token with sync works; one without it is 401", async () => {
    const sync = await deviceToken(t, reader.token, ["sync"]);
    const opds = await deviceToken(t, reader.token, ["opds", "entitlements"]);
    const withSync = await t.call("GET", `/book/${bookId}/progress`, {
      headers: { Authorization: basicAuth(reader.email, sync) },
    });
    expect((await bodyAs(withSync, ReadingProgress)).percentage).toBe(0.41);
    const without = await t.call("GET", `/book/${bookId}/progress`, {
      headers: { Authorization: basicAuth(reader.email, opds) },
    });
    await expectProblem(without, 401, "AUTHENTICATION_FAILED");
  });

  test("a book the caller does not hold → 403, no such book → 404; another user's position is their own", async () => {
    const stranger = await t.user();
    const body = { percentage: 0.5, device: "x", modified: "2026-11-21T11:00:00.000Z" };
    await expectProblem(await put(bookId, body, { token: stranger.token }), 403, "FORBIDDEN");
    await expectProblem(
      await t.call("GET", `/book/${bookId}/progress`, { token: stranger.token }),
      403,
      "FORBIDDEN",
    );
    await expectProblem(await put(999_999, body, { token: stranger.token }), 404, "NOT_FOUND");
    await grantBook(t, bookId, stranger.uuid);
    expect((await t.call("GET", `/book/${bookId}/progress`, { token: stranger.token })).status).toBe(204);
    expect((await put(bookId, body, { token: stranger.token })).status).toBe(200);
    const mine = await bodyAs(
      await t.call("GET", `/book/${bookId}/progress`, { token: reader.token }),
      ReadingProgress,
    );
    expect(mine.percentage).toBe(0.41);
  });

  test.each([
    ["percentage above 1", { percentage: 1.5 }],
    ["percentage below 0", { percentage: -0.1 }],
    ["no percentage", { percentage: undefined }],
    ["an empty device", { device: "" }],
    ["a device of 101 characters", { device: "d".repeat(101) }],
    ["no modified", { modified: undefined }],
    ["a modified that is no RFC 3339", { modified: "21/11/2026" }],
    ["a locator without href", { locator: { type: "application/xhtml+xml", locations: {} } }],
    ["a progression above 1", { locator: { ...locator, locations: { progression: 1.2 } } }],
    ["a position of 0", { locator: { ...locator, locations: { position: 0 } } }],
    ["an href of 2049 characters", { locator: { ...locator, href: "h".repeat(2049) } }],
    ["a highlight of 1001 characters", { locator: { ...locator, text: { highlight: "x".repeat(1001) } } }],
  ])("%s → 400 VALIDATION_FAILED, nothing stored", async (_name, change) => {
    const body = {
      percentage: 0.9,
      locator,
      device: "validator",
      modified: "2026-11-21T11:00:59.000Z",
      ...change,
    };
    await expectProblem(await put(otherBookId, body, { token: reader.token }), 400, "VALIDATION_FAILED");
    expect((await t.call("GET", `/book/${otherBookId}/progress`, { token: reader.token })).status).toBe(204);
  });
});
