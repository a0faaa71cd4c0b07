// The console in a real browser (Debian's Chromium through playwright-core) against the real server
// started as the README says: keyboard-only sign-in, then every screen of SCREENS at 1280 and 360 px
// wide — axe-core with no serious or critical violation, no Content-Security-Policy violation, no
// script error, no sideways scrolling at 360 px — with a screenshot of each into a folder the test
// prints. A screen is one row of SCREENS: the next screens add theirs there.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { launchChromium } from "../helpers/chromium";
import {
  CSP_WATCH,
  cspViolations,
  seriousViolations,
  signInWithKeyboard,
  watch,
} from "../helpers/console-browser";
import { makePng } from "../helpers/png";
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
  { name: "shop-orders", path: () => "/console/shop/orders", shows: "Grants of shop orders" },
  { name: "apks", path: () => "/console/apks", shows: "APKs" },
  { name: "audit", path: () => "/console/audit", shows: "Audit log" },
  { name: "system", path: () => "/console/system", shows: "System" },
  { name: "not-found", path: () => "/console/no-such-screen", shows: "Page not found" },
];

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
    // The not-found screen answers 404, which Chromium reports as a console error.
    const watched = watch(page, { ignoreConsole: (message) => message.text().includes("404") });
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
        // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, the text as rendered
        expect([screen.name, await page.locator("main").innerText()]).toEqual([
          screen.name,
          expect.stringContaining(screen.shows),
        ]);
        const violations = await seriousViolations(page);
        const blocked = await cspViolations(page);
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

  test("at 360 px a wide table scrolls sideways in its own region, by keyboard too; the page does not", async () => {
    // A context of its own: signed in afresh, whichever test ran before.
    const own = await browser.newContext({ viewport: { width: 360, height: 900 } });
    const page = await own.newPage();
    page.setDefaultTimeout(15_000);
    await signInWithKeyboard(page, server.url, ADMIN, TEST_PASSWORD);
    await page.goto(`${server.url}/console/users/${seed.readerUuid}`);
    const region = page.locator("#user-activations .table-scroll");
    // A <section> with a name: the region role.
    expect(await region.evaluate((box: { tagName: string }) => box.tagName)).toBe("SECTION");
    expect(await region.getAttribute("aria-label")).toBe("The books this user holds");
    expect(await region.getAttribute("tabindex")).toBe("0");
    const widths = (await region.evaluate((box: { scrollWidth: number; clientWidth: number }) => [
      box.scrollWidth,
      box.clientWidth,
    ])) as [number, number];
    expect(widths[0]).toBeGreaterThan(widths[1]);
    expect(
      await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"),
    ).toBeLessThanOrEqual(0);
    await region.focus();
    await page.keyboard.press("ArrowRight");
    const scrolled = () => region.evaluate((box: { scrollLeft: number }) => box.scrollLeft);
    for (let i = 0; i < 50 && (await scrolled()) === 0; i++) await Bun.sleep(20);
    expect(await scrolled()).toBeGreaterThan(0);
    await own.close();
  });

  test("the cover preview is hidden until an image is chosen, and again when the choice is cleared", async () => {
    const own = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await own.newPage();
    page.setDefaultTimeout(15_000);
    await signInWithKeyboard(page, server.url, ADMIN, TEST_PASSWORD);
    await page.goto(`${server.url}/console/books/${seed.bookId}`);
    const preview = page.locator("img[data-preview-for]");
    expect(await preview.getAttribute("hidden")).not.toBeNull();
    expect(await preview.isVisible()).toBe(false);
    const input = page.locator('form[aria-label="Upload cover"] input[type="file"]');
    const png = makePng({ width: 30, height: 40, colorType: 2, bitDepth: 8 });
    await input.setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: Buffer.from(png) });
    await preview.waitFor({ state: "visible" });
    await input.setInputFiles([]);
    await preview.waitFor({ state: "hidden" });
    await own.close();
  });
});
