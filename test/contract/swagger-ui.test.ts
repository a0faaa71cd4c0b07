// Swagger UI in a real browser (Chromium through playwright-core) against the real server:
// every tag is shown, the Authorize dialog takes a bearer token, and "Try it out" → "Execute"
// on GET /book/count shows the server's answer, all under the page's Content-Security-Policy
// (no violation) and without the token written to localStorage. A screenshot goes to test-output/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { projectRoot, type RealServer, startRealServer } from "../helpers/real-server";
import { requireTool } from "../helpers/requires";
import { TEST_PASSWORD } from "../helpers/test-app";

const hasChromium = requireTool("chromium", "chromium");
const ADMIN = "swagger-admin@example.com";
const screenshot = join(projectRoot, "test-output", "swagger-ui.png");
const screenshotOfTags = join(projectRoot, "test-output", "swagger-ui-tags.png");

let server: RealServer;
let browser: Browser;
let token: string;
let tags: string[];

// The hooks sit inside: without Chromium neither the server nor the browser starts.
describe.if(hasChromium)("Swagger UI in Chromium", () => {
  beforeAll(async () => {
    server = await startRealServer();
    const session = await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password: TEST_PASSWORD }),
    });
    expect(session.status).toBe(201);
    token = ((await session.json()) as { token: string }).token;
    await grantAdminWithCli(ADMIN, server.dataEnv);
    for (const title of ["First", "Second", "Third"]) {
      const created = await fetch(`${server.url}/book`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ title }),
      });
      expect(created.status).toBe(201);
    }
    const doc = (await (await fetch(`${server.url}/v3/api-docs`)).json()) as {
      tags: Array<{ name: string }>;
    };
    tags = doc.tags.map((tag) => tag.name);
    // CI runs as root, where Chromium's sandbox cannot start. The other three switches keep the
    // headless page from being throttled as a background one (Puppeteer sets them by default):
    // Playwright's waits poll on the page's animation frames.
    browser = await chromium.launch({
      executablePath: Bun.which("chromium")!,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-renderer-backgrounding",
        "--disable-background-timer-throttling",
        "--disable-backgrounding-occluded-windows",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("shows every tag, authorises with a bearer token and executes GET /book/count", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(10_000);
    const failedAssets: string[] = [];
    page.on("requestfailed", (request) => failedAssets.push(request.url()));
    page.on("response", (response) => {
      if (response.status() >= 400) failedAssets.push(`${response.status()} ${response.url()}`);
    });
    // What the policy blocks, reported by the page itself (Playwright's init script is exempt;
    // as text, since the page's DOM types are not this project's).
    await page.addInitScript(`
      window.blocked = [];
      document.addEventListener("securitypolicyviolation", (event) =>
        window.blocked.push(event.effectiveDirective + " " + event.blockedURI));
    `);
    // The browser's own report of the same (the favicon's 404 is not one).
    const refusals: string[] = [];
    page.on("console", (message) => {
      if (message.text().includes("Content Security Policy")) refusals.push(message.text());
    });
    const answer = await page.goto(`${server.url}/swagger-ui`);
    expect(answer?.headers()["content-security-policy"]).toContain("script-src 'self'");
    mkdirSync(join(projectRoot, "test-output"), { recursive: true });

    // Every tag of the document is a section of the page. Swagger UI renders the 500 KB document
    // in one go: on a busy two-core machine that took up to ~15 s.
    await page.locator(".opblock-tag-section").first().waitFor({ timeout: 45_000 });
    const shown = await page.locator(".opblock-tag-section h3 .nostyle span").allTextContents();
    expect(shown).toEqual(tags);
    await page.screenshot({ path: screenshotOfTags });

    // Authorize: the bearer scheme's dialog section takes the token.
    await page.locator(".auth-wrapper .authorize").click();
    const bearer = page.locator(".auth-container", { hasText: "bearerAuth" });
    await bearer.locator("input").fill(token);
    await bearer.locator(".auth-btn-wrapper .authorize").click();
    // Authorised: the section now shows the scheme as set and offers to log out.
    await bearer.locator(".auth-btn-wrapper button", { hasText: "Logout" }).waitFor();
    await page.locator(".dialog-ux .btn-done").first().click();
    // Kept by the tab only: nothing a later visitor or another script of the origin could read.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(stored).not.toContain(token.split(".")[2]!);

    // Expand GET /book/count, "Try it out", "Execute", read the live response.
    const operation = page.locator("#operations-Book-countBooks");
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === "/book/count");
    await operation.getByRole("button", { name: "Execute" }).click();
    const response = await answered;
    expect(response.request().headers().authorization).toBe(`Bearer ${token}`);

    const live = operation.locator(".live-responses-table tbody tr.response");
    await live.waitFor();
    expect((await live.locator(".response-col_status").textContent())?.trim()).toBe("200");
    expect((await live.locator(".response-col_description pre").first().textContent())?.trim()).toBe("3");

    await operation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshot, fullPage: false });
    expect(failedAssets).toEqual([]);
    expect(await page.evaluate("window.blocked")).toEqual([]);
    expect(refusals).toEqual([]);
    await page.close();
  }, 120_000);
});
