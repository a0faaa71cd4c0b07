// The activations screen (API.md §10 /console/activations, /new): filters in the query string
// (book, user by e-mail or uuid, source, date), a wrong filter said beside its field; revoke after
// a confirmation page; grant by hand with the fields Book and E-mail, errors beside them and the
// values kept, a 409 that says what to do; a cross-site POST changes nothing. SQLite or Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { countActivations } from "../../src/services/activations";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeBook, makeCodes, redeem } from "./fixtures";
import { consoleRequest, expectLoginRedirect, signedInAdmin, textOf } from "./helpers";

describe("console activations", () => {
  let t: TestApp;
  let cookie: string;
  let bookId: number;
  let otherBookId: number;
  let reader: { uuid: string; email: string; token: string };
  let activationId: number;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
    bookId = (await makeBook(t, "Redeemed Book")).id;
    otherBookId = (await makeBook(t, "Granted Book")).id;
    const [code] = await makeCodes(t, bookId, 1);
    reader = await t.user("reader@example.com");
    activationId = await redeem(t, reader.token, code!.code);
  });
  afterAll(() => t.close());

  const get = (path: string) => consoleRequest(t, "GET", path, { cookie });

  test("no session: to the sign-in page", async () => {
    expectLoginRedirect(
      await consoleRequest(t, "GET", "/console/activations/new"),
      "/console/activations/new",
    );
  });

  test("filters: book, user by e-mail, source, date; each kept in the form", async () => {
    const all = textOf(await (await get("/console/activations")).text());
    expect(all).toContain("Redeemed Book");
    const cases: [string, boolean][] = [
      [`book=${bookId}`, true],
      [`book=${otherBookId}`, false],
      [`user=${reader.email}`, true],
      [`user=${reader.uuid}`, true],
      ["source=code", true],
      ["source=manual", false],
      ["from=2000-01-01&to=2999-12-31", true],
      ["from=2999-01-01", false],
    ];
    for (const [filter, listed] of cases) {
      const response = await get(`/console/activations?${filter}`);
      expect([filter, response.status]).toEqual([filter, 200]);
      const html = await response.text();
      expect([filter, textOf(html).includes("Redeemed Book")]).toEqual([filter, listed]);
      const [name, value] = filter.split("&")[0]!.split("=");
      if (name !== "source")
        expect(html).toContain(`name="${name}" type="${name === "from" ? "date" : "text"}" value="${value}"`);
    }
    const nobody = textOf(await (await get("/console/activations?user=nobody@example.com")).text());
    expect(nobody).toContain("No user has the e-mail or login nobody@example.com");
  });

  test("a wrong filter: 400, its message beside its field", async () => {
    const response = await get("/console/activations?book=abc&from=yesterday");
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toMatch(/id="error-book">Enter the book&#39;s id/);
    expect(html).toMatch(/id="error-from">Enter a date/);
    expect(html).toContain('value="abc"');
  });

  test("grant by hand: fields Book and E-mail; errors beside them, values kept", async () => {
    const form = await get("/console/activations/new");
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toMatch(/<label for="field-book">Book/);
    expect(html).toMatch(/<label for="field-email">E-mail/);

    const unknown = await consoleRequest(t, "POST", "/console/activations/new", {
      cookie,
      form: { book: "999999", email: "nobody@example.com" },
    });
    expect(unknown.status).toBe(400);
    const unknownHtml = await unknown.text();
    expect(unknownHtml).toMatch(/id="error-email">No user has this e-mail address/);
    expect(unknownHtml).toContain('value="999999"');
    expect(unknownHtml).toContain('value="nobody@example.com"');

    const noBook = await consoleRequest(t, "POST", "/console/activations/new", {
      cookie,
      form: { book: "999999", email: reader.email },
    });
    expect(noBook.status).toBe(400);
    expect(await noBook.text()).toMatch(/id="error-book">No book has the id 999999/);

    const before = await countActivations(t.deps.db, {});
    const granted = await consoleRequest(t, "POST", "/console/activations/new", {
      cookie,
      form: { book: String(otherBookId), email: reader.email },
    });
    expect(granted.status).toBe(303);
    expect(granted.headers.get("location")).toBe(
      `/console/activations?user=${reader.uuid}&done=activation-granted`,
    );
    expect(await countActivations(t.deps.db, { source: "manual", userUuid: reader.uuid })).toBe(1);
    expect(await countActivations(t.deps.db, {})).toBe(before + 1);

    const again = await consoleRequest(t, "POST", "/console/activations/new", {
      cookie,
      form: { book: String(otherBookId), email: reader.email },
    });
    expect(again.status).toBe(409);
    expect(textOf(await again.text())).toContain("already holds this book: there is nothing to grant");
  });

  test("cross-site POST: 403, nothing granted or revoked", async () => {
    const before = await countActivations(t.deps.db, {});
    const evil = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };
    const grant = await consoleRequest(t, "POST", "/console/activations/new", {
      cookie,
      headers: evil,
      form: { book: String(bookId), email: "admin@example.com" },
    });
    expect(grant.status).toBe(403);
    const revoke = await consoleRequest(t, "POST", `/console/activations/${activationId}/revoke`, {
      cookie,
      headers: evil,
    });
    expect(revoke.status).toBe(403);
    expect(await countActivations(t.deps.db, {})).toBe(before);
  });

  test("revoke: a confirmation page with a Revoke button, then the POST", async () => {
    const confirm = await get(`/console/activations/${activationId}/revoke`);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toMatch(/<button type="submit"[^>]*>Revoke<\/button>/);
    expect(textOf(html)).toContain("Redeemed Book");
    expect(await countActivations(t.deps.db, { bookId })).toBe(1);
    const revoked = await consoleRequest(t, "POST", `/console/activations/${activationId}/revoke`, {
      cookie,
    });
    expect(revoked.status).toBe(303);
    expect(await countActivations(t.deps.db, { bookId })).toBe(0);
    expect((await get(`/console/activations/${activationId}/revoke`)).status).toBe(404);
    const again = await consoleRequest(t, "POST", `/console/activations/${activationId}/revoke`, { cookie });
    expect(again.status).toBe(404);
  });
});
