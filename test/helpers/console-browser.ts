// The console's browser tests' shared harness (test/console/browser.test.ts, publisher-day.test.ts):
// a watch for CSP violations, script errors and failed requests, the keyboard-only sign-in, and
// axe's serious and critical findings. Debian's Chromium itself: helpers/chromium.ts.

import { expect } from "bun:test";
import AxeBuilder from "@axe-core/playwright";
import type { ConsoleMessage, Page, Request } from "playwright-core";

/** An init script: each CSP violation of the page as "directive blocked-URI" in `window.blocked`. */
export const CSP_WATCH = `
  window.blocked = [];
  document.addEventListener("securitypolicyviolation", (event) =>
    window.blocked.push(event.effectiveDirective + " " + event.blockedURI));
`;

/** The CSP violations the page has seen since it loaded (CSP_WATCH must be an init script). */
export async function cspViolations(page: Page): Promise<string[]> {
  return (await page.evaluate("window.blocked")) as string[];
}

export interface WatchOptions {
  /** A console error that is no fault (the 404 page's own status, say). */
  ignoreConsole?: (message: ConsoleMessage) => boolean;
  /** A failed request that is no fault (a download the page hands to the browser ends "aborted"). */
  ignoreFailed?: (request: Request) => boolean;
}

/** Watches a page for script errors, console errors and failed requests, as lines naming the page. */
export function watch(page: Page, options: WatchOptions = {}): { problems: string[] } {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`script error: ${error.message}`));
  page.on("console", (message) => {
    // The browser asks for /favicon.ico by itself; the server has none (a 404, not a page's fault).
    if (message.type() !== "error" || options.ignoreConsole?.(message)) return;
    if (!message.location().url.endsWith("/favicon.ico"))
      problems.push(`console: ${message.text()} ${message.location().url} on ${page.url()}`);
  });
  page.on("requestfailed", (request) => {
    if (!options.ignoreFailed?.(request))
      problems.push(`failed: ${request.url()} ${request.failure()?.errorText} on ${page.url()}`);
  });
  return { problems };
}

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
