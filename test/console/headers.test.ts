// API.md §10: every console response carries the CSP, no-store and same-origin referrer — pages,
// redirects, the sign-in page, static files, 403, 404, 405 and 500 alike — and no page has inline
// script or style.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assets } from "../../src/console/assets";
import { CONSOLE_CSP } from "../../src/console/headers";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { consoleRequest, signedInAdmin } from "./helpers";

const EXPECTED_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function expectConsoleHeaders(response: Response, what: string): void {
  expect([what, response.headers.get("content-security-policy")]).toEqual([what, EXPECTED_CSP]);
  expect([what, response.headers.get("cache-control")]).toEqual([what, "no-store"]);
  expect([what, response.headers.get("referrer-policy")]).toEqual([what, "same-origin"]);
}

/** No <script> without src, no <style>, no style="…", no on…= handler. */
function expectNoInlineCode(html: string, what: string): void {
  expect([what, /<script(?![^>]*\ssrc=)[^>]*>/i.test(html)]).toEqual([what, false]);
  expect([what, /<style[\s>]/i.test(html)]).toEqual([what, false]);
  expect([what, /\sstyle=/i.test(html)]).toEqual([what, false]);
  expect([what, /\son[a-z]+=/i.test(html)]).toEqual([what, false]);
}

describe("console headers", () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { CORS_ORIGINS: "https://app.example" } });
    ({ cookie } = await signedInAdmin(t));
  });
  afterAll(() => t.close());

  test("the CSP is §10's, exactly", () => {
    expect(CONSOLE_CSP).toBe(EXPECTED_CSP);
  });

  test("on pages, redirects, static files and errors", async () => {
    const cases: [string, Promise<Response>, number][] = [
      ["dashboard", consoleRequest(t, "GET", "/console", { cookie }), 200],
      ["HEAD dashboard", consoleRequest(t, "HEAD", "/console", { cookie }), 200],
      ["sign-in page", consoleRequest(t, "GET", "/console/login"), 200],
      ["no session", consoleRequest(t, "GET", "/console/books"), 303],
      ["signed in, sign-in page", consoleRequest(t, "GET", "/console/login", { cookie }), 303],
      ["404", consoleRequest(t, "GET", "/console/no-such-screen", { cookie }), 404],
      ["unknown static file", consoleRequest(t, "GET", "/console/static/0/htmx.min.js"), 303],
      ["htmx", consoleRequest(t, "GET", assets.htmx.url), 200],
      ["upload script", consoleRequest(t, "GET", assets.upload.url), 200],
      ["css", consoleRequest(t, "GET", assets.css.url), 200],
      [
        "cross-site POST",
        consoleRequest(t, "POST", "/console/logout", {
          headers: { Origin: "https://evil.example" },
          sameOrigin: false,
        }),
        403,
      ],
      ["405", consoleRequest(t, "PUT", "/console/login"), 405],
      [
        "failed sign-in",
        consoleRequest(t, "POST", "/console/login", { form: { email: "x@example.com", password: "nope" } }),
        401,
      ],
    ];
    for (const [what, pending, status] of cases) {
      const response = await pending;
      expect([what, response.status]).toEqual([what, status]);
      expectConsoleHeaders(response, what);
      // The API's CORS never reaches the console.
      expect([what, response.headers.get("access-control-allow-origin")]).toEqual([what, null]);
      if ((response.headers.get("content-type") ?? "").startsWith("text/html")) {
        expectNoInlineCode(await response.text(), what);
      }
    }
  });

  test("a 500 shows the request id and nothing else, with the headers", async () => {
    const store = t.deps.store;
    const findByUuid = store.findByUuid.bind(store);
    store.findByUuid = () => Promise.reject(new Error("secret internal detail /var/lib/x"));
    try {
      t.clock.advance(31_000); // the next page re-reads the account from the store
      const response = await consoleRequest(t, "GET", "/console", { cookie });
      expect(response.status).toBe(500);
      expectConsoleHeaders(response, "500");
      const html = await response.text();
      const requestId = response.headers.get("x-request-id") ?? "";
      expect(html).toContain(requestId);
      expect(html).not.toContain("secret internal detail");
      expect(html).not.toContain("/var/lib");
      expect(html).not.toMatch(/at .*\.ts:\d+/);
    } finally {
      store.findByUuid = findByUuid;
    }
  });

  test("static files: their types, versioned paths, htmx 2", async () => {
    expect(assets.htmx.url).toMatch(/^\/console\/static\/[0-9a-f]{16}\/htmx\.min\.js$/);
    const htmx = await consoleRequest(t, "GET", assets.htmx.url);
    expect(htmx.headers.get("content-type")).toBe("text/javascript; charset=UTF-8");
    expect(await htmx.text()).toContain('version:"2.');
    const css = await consoleRequest(t, "GET", assets.css.url);
    expect(css.headers.get("content-type")).toBe("text/css; charset=UTF-8");
  });

  test("the API's own responses are untouched", async () => {
    const response = await t.app.request("/health");
    expect(response.headers.get("content-security-policy")).toBeNull();
    const docs = await t.app.request("/v3/api-docs");
    const paths = Object.keys(((await docs.json()) as { paths: Record<string, unknown> }).paths);
    expect(paths.filter((path) => path.startsWith("/console"))).toEqual([]);
  });
});
