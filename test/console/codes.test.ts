// The codes screen (API.md §10 /console/codes?q=): a code found as a reader typed it, its book,
// print run, state and activations; enable, and disable after its own confirmation page; a
// cross-site POST changes nothing. On SQLite or, with TEST_DATABASE_URL, Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getQrCode } from "../../src/services/qr-codes";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeBook, makeCodes, redeem } from "./fixtures";
import { consoleRequest, expectLoginRedirect, signedInAdmin, textOf } from "./helpers";

describe("console codes", () => {
  let t: TestApp;
  let cookie: string;
  let code: { id: number; code: string };
  let reader: { uuid: string };
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
    const book = await makeBook(t, "The Tea Book");
    code = (await makeCodes(t, book.id, 2, "Spring run"))[0]!;
    const user = await t.user("reader@example.com");
    reader = user;
    await redeem(t, user.token, code.code);
  });
  afterAll(() => t.close());

  test("no session: to the sign-in page", async () => {
    expectLoginRedirect(await consoleRequest(t, "GET", "/console/codes?q=x"), "/console/codes?q=x");
  });

  test("a code typed loosely is found: book, print run, state, activations", async () => {
    const typed = code.code.toLowerCase().replace(/0/g, "o").replace(/1/g, "l");
    const loose = `${typed.slice(0, 4)}-${typed.slice(4)}`;
    const response = await consoleRequest(t, "GET", `/console/codes?q=${encodeURIComponent(loose)}`, {
      cookie,
    });
    expect(response.status).toBe(200);
    const html = await response.text();
    const text = textOf(html);
    expect(text).toContain(`Code ${code.code}`);
    expect(text).toContain("The Tea Book");
    expect(text).toContain("Spring run (print run");
    expect(text).toContain("Activations 1 of 2");
    expect(text).toContain("State Available");
    expect(html).toContain(`/console/users/${reader.uuid}`);
    expect(html).toContain(`value="${loose}"`);
  });

  test("an unknown code or no code at all: said so, 200", async () => {
    const unknown = await consoleRequest(t, "GET", "/console/codes?q=ZZZZ-ZZZZ", { cookie });
    expect(unknown.status).toBe(200);
    expect(textOf(await unknown.text())).toContain("No code is ZZZZ-ZZZZ");
    const empty = await consoleRequest(t, "GET", "/console/codes", { cookie });
    expect(empty.status).toBe(200);
    expect(textOf(await empty.text())).not.toContain("No code is");
  });

  test("disable: a confirmation page, then a POST; enable again", async () => {
    const confirm = await consoleRequest(t, "GET", `/console/codes/${code.id}/disable`, { cookie });
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toContain(`action="/console/codes/${code.id}/disable"`);
    expect(html).toMatch(/<button type="submit"[^>]*>Disable<\/button>/);
    // The GET changed nothing.
    expect((await getQrCode(t.deps.db, code.id)).enabled).toBe(true);

    const disabled = await consoleRequest(t, "POST", `/console/codes/${code.id}/disable`, { cookie });
    expect(disabled.status).toBe(303);
    expect(disabled.headers.get("location")).toBe(`/console/codes?q=${code.code}&done=code-disabled`);
    expect((await getQrCode(t.deps.db, code.id)).enabled).toBe(false);
    const shown = await consoleRequest(t, "GET", disabled.headers.get("location")!, { cookie });
    const text = textOf(await shown.text());
    expect(text).toContain("The code is disabled.");
    expect(text).toContain("State Disabled");

    const enabled = await consoleRequest(t, "POST", `/console/codes/${code.id}/enable`, { cookie });
    expect(enabled.status).toBe(303);
    expect((await getQrCode(t.deps.db, code.id)).enabled).toBe(true);
  });

  test("cross-site POST: 403, the code unchanged", async () => {
    const response = await consoleRequest(t, "POST", `/console/codes/${code.id}/disable`, {
      cookie,
      headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" },
    });
    expect(response.status).toBe(403);
    expect((await getQrCode(t.deps.db, code.id)).enabled).toBe(true);
  });

  test("an unknown or malformed id: 404", async () => {
    for (const path of ["/console/codes/999999/disable", "/console/codes/abc/disable"]) {
      expect((await consoleRequest(t, "GET", path, { cookie })).status).toBe(404);
    }
    expect((await consoleRequest(t, "POST", "/console/codes/999999/enable", { cookie })).status).toBe(404);
  });
});
