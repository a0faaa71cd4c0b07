// Debian's Chromium under playwright-core, as every browser test launches it.
import { type Browser, chromium } from "playwright-core";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: Bun.which("chromium")!,
    headless: true,
    args: [
      // CI runs as root, where Chromium's sandbox cannot start.
      "--no-sandbox",
      // Keep the headless page from being throttled as a background one (Puppeteer sets these by
      // default): Playwright's waits poll on the page's animation frames.
      "--disable-renderer-backgrounding",
      "--disable-background-timer-throttling",
      "--disable-backgrounding-occluded-windows",
    ],
  });
}
