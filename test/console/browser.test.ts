// The console in a real browser (Debian's Chromium through playwright-core) against the real server
// started as the README says: keyboard-only sign-in, then every screen of SCREENS at 1280 and 360 px
// wide — axe-core with no serious or critical violation, no Content-Security-Policy violation, no
// script error, no sideways scrolling at 360 px — with a screenshot of each into a folder the test
// prints. A screen is one row of SCREENS: the next screens add theirs there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { launchChromium } from "../helpers/chromium";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { requireTool } from "../helpers/requires";
import { TEST_PASSWORD } from "../helpers/test-app";

const hasChromium = requireTool("chromium", "chromium");
const ADMIN = "console-admin@example.com";
const READER = "console-reader@example.com";

/** What the screens' paths are built from: the records seeded before the run. */
export interface Seed {
  bookId: number;
  batchId: number;
  /** A printed code as a reader reads it out, and the id of the code a reader redeemed. */
  code: string;
  redeemedCodeId: number;
  /** The reader who redeemed it, and the activation it made. */
  readerUuid: string;
  activationId: number;
}

export interface ScreenCase {
  /** The screenshot's base name. */
  name: string;
  path: (seed: Seed) => string;
  /** Text the page must show (its heading, say). */
  shows: string;
}

/** Every screen the browser visits. Add a row per new screen. */
export const SCREENS: ScreenCase[] = [
  { name: "dashboard", path: () => "/console", shows: "Dashboard" },
  { name: "dashboard-90", path: () => "/console?days=90", shows: "The last 90 days" },
  { name: "books", path: () => "/console/books", shows: "Books" },
  { name: "books-search", path: () => "/console/books?q=Tea", shows: "Tea Garden" },
  { name: "book-new", path: () => "/console/books/new", shows: "New book" },
  { name: "book", path: (s) => `/console/books/${s.bookId}`, shows: "Tea Garden" },
  { name: "book-delete", path: (s) => `/console/books/${s.bookId}/delete`, shows: "Delete" },
  { name: "print-runs", path: () => "/console/print-runs", shows: "Print runs" },
  { name: "print-run-new", path: (s) => `/console/books/${s.bookId}/print-runs/new`, shows: "New print run" },
  { name: "print-run", path: (s) => `/console/print-runs/${s.batchId}`, shows: "First print" },
  { name: "print-run-disable", path: (s) => `/console/print-runs/${s.batchId}/disable`, shows: "Disable" },
  { name: "codes", path: () => "/console/codes", shows: "Codes" },
  { name: "code-found", path: (s) => `/console/codes?q=${encodeURIComponent(s.code)}`, shows: "First print" },
  { name: "code-disable", path: (s) => `/console/codes/${s.redeemedCodeId}/disable`, shows: "Disable" },
  { name: "activations", path: () => "/console/activations", shows: "Activations" },
  {
    name: "activations-of-book",
    path: (s) => `/console/activations?book=${s.bookId}`,
    shows: "Activations",
  },
  { name: "activation-new", path: () => "/console/activations/new", shows: "Grant a book by hand" },
  {
    name: "activation-revoke",
    path: (s) => `/console/activations/${s.activationId}/revoke`,
    shows: "Revoke",
  },
  { name: "users", path: () => "/console/users?q=console", shows: "Users" },
  { name: "user", path: (s) => `/console/users/${s.readerUuid}`, shows: READER },
  { name: "user-sessions-end", path: (s) => `/console/users/${s.readerUuid}/sessions/end`, shows: "End" },
  { name: "shop", path: () => "/console/shop", shows: "Shop" },
  { name: "apks", path: () => "/console/apks", shows: "APKs" },
  { name: "audit", path: () => "/console/audit", shows: "Audit log" },
  { name: "system", path: () => "/console/system", shows: "System" },
  { name: "not-found", path: () => "/console/no-such-screen", shows: "Page not found" },
];

/** Watches a page for CSP violations, script errors and failed requests. */
export function watch(page: Page): { problems: string[] } {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`script error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !message.text().includes("404"))
      problems.push(`console: ${message.text()}`);
  });
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()}`));
  return { problems };
}

const CSP_WATCH = `
  window.blocked = [];
  document.addEventListener("securitypolicyviolation", (event) =>
    window.blocked.push(event.effectiveDirective + " " + event.blockedURI));
`;

/** Signs in with the keyboard alone: Tab to E-mail, type, Tab to Password, type, Enter. */
export async function signInWithKeyboard(
  page: Page,
  url: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${url}/console/login`);
  for (let i = 0; i < 10; i++) {
    await page.keyboard.press("Tab");
    if ((await page.evaluate("document.activeElement?.id")) === "field-email") break;
  }
  expect(await page.evaluate("document.activeElement?.id")).toBe("field-email");
  await page.keyboard.type(email);
  await page.keyboard.press("Tab");
  expect(await page.evaluate("document.activeElement?.id")).toBe("field-password");
  await page.keyboard.type(password);
  await Promise.all([page.waitForURL(`${url}/console`), page.keyboard.press("Enter")]);
}

/** axe's serious and critical violations of the page, as lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

let server: RealServer;
let browser: Browser;
let context: BrowserContext;
let seed: Seed;
const output = mkdtempSync(join(tmpdir(), "bookdist-console-screens-"));

describe.if(hasChromium)("the console in Chromium", () => {
  beforeAll(async () => {
    server = await startRealServer();
    const session = await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password: TEST_PASSWORD }),
    });
    expect(session.status).toBe(201);
    const token = ((await session.json()) as { token: string }).token;
    await grantAdminWithCli(ADMIN, server.dataEnv);
    const api = async (path: string, body: unknown, bearer = token) => {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${bearer}` },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return response.json() as Promise<Record<string, unknown>>;
    };
    const book = await api("/book", { title: "Tea Garden", author: "Ann Author", language: "en" });
    await api("/bookversion", { bookId: book.id, versionCode: 1, versionName: "1.0" });
    const codes = (await api("/activation-qr-code/batch", {
      bookId: book.id,
      quantity: 5,
      label: "First print",
    })) as unknown as { id: number; batchId: number; code: string }[];
    const reader = (await api("/authentication/register", { email: READER, password: TEST_PASSWORD })) as {
      token: string;
    };
    const activation = await api("/activation/by-qr-code", { code: codes[1]!.code }, reader.token);
    seed = {
      bookId: Number(book.id),
      batchId: Number(codes[0]?.batchId),
      code: codes[0]!.code,
      redeemedCodeId: codes[1]!.id,
      readerUuid: String(activation.userUuid),
      activationId: Number(activation.id),
    };
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    console.log(`console screenshots: ${output}`);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("keyboard-only sign-in, then every screen: axe, CSP, script errors, 1280 and 360 px", async () => {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.addInitScript(CSP_WATCH);
    const watched = watch(page);
    await signInWithKeyboard(page, server.url, ADMIN, TEST_PASSWORD);
    const cookies = await context.cookies();
    const cookie = cookies.find((c) => c.name === "__Host-bookdist-console");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.secure).toBe(true);
    expect(cookie?.sameSite).toBe("Strict");
    expect(await page.evaluate("document.cookie")).toBe("");

    const results: string[] = [];
    for (const screen of SCREENS) {
      for (const width of [1280, 360]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${server.url}${screen.path(seed)}`);
        await page.waitForLoadState("load");
        expect([screen.name, await page.locator("main").innerText()]).toEqual([
          screen.name,
          expect.stringContaining(screen.shows),
        ]);
        const violations = await seriousViolations(page);
        const blocked = (await page.evaluate("window.blocked")) as string[];
        const overflow = (await page.evaluate(
          "document.documentElement.scrollWidth - window.innerWidth",
        )) as number;
        const file = `${screen.name}-${width}.png`;
        await page.screenshot({ path: join(output, file), fullPage: true });
        results.push(`${file}: axe serious/critical ${violations.length}, CSP violations ${blocked.length}`);
        expect([screen.name, width, violations]).toEqual([screen.name, width, []]);
        expect([screen.name, width, blocked]).toEqual([screen.name, width, []]);
        if (width === 360) expect([screen.name, overflow <= 0]).toEqual([screen.name, true]);
      }
    }
    console.log(results.join("\n"));
    expect(watched.problems).toEqual([]);

    // Sign out with the keyboard too: the banner's button.
    await page.goto(`${server.url}/console`);
    await page.locator(".sign-out button").focus();
    await Promise.all([page.waitForURL(/\/console\/login/), page.keyboard.press("Enter")]);
    expect((await context.cookies()).find((c) => c.name === "__Host-bookdist-console")).toBeUndefined();
  }, 240_000);
});
