// A publisher's day in the console, end to end, in a real browser (Debian's Chromium through
// playwright-core) against the real server started as the README says (README "Console"): sign in
// with the keyboard; create a book; upload its cover and an EPUB archive with the progress bar
// reaching 100 %; make a print run of 500 codes and download its CSV and PDF (poppler reads the 500
// codes); a reader redeems one over the API; find it by the code, revoke that activation, grant the
// book by hand; map a shop product; read the audit log of it all; sign out. The outcomes are read
// back over the JSON API; no CSP violation and no script error anywhere on the way.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { ApkWorkshop, requireAndroidTools } from "../helpers/android-tools";
import { launchChromium } from "../helpers/chromium";
import { CSP_WATCH, cspViolations, signInWithKeyboard, watch } from "../helpers/console-browser";
import { buildEpub } from "../helpers/epub";
import { makePng } from "../helpers/png";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { requireTool } from "../helpers/requires";
import { TEST_PASSWORD } from "../helpers/test-app";

const hasChromium = requireTool("chromium", "chromium");
const hasPoppler = requireTool("pdftotext", "poppler-utils");
const hasAndroidTools = requireAndroidTools("aapt", "apksigner", "keytool");
const ADMIN = "day-admin@example.com";
const READER = "day-reader@example.com";
const GRANTED = "day-granted@example.com";

// The highest value any <progress> took, kept across the redirect that follows an upload.
const PROGRESS_WATCH = `
  const progressValue = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, "value");
  Object.defineProperty(HTMLProgressElement.prototype, "value", {
    configurable: true,
    get() { return progressValue.get.call(this); },
    set(v) {
      progressValue.set.call(this, v);
      const seen = Number(sessionStorage.getItem("progress-max") ?? "0");
      sessionStorage.setItem("progress-max", String(Math.max(seen, progressValue.get.call(this))));
    },
  });
`;

let server: RealServer;
let browser: Browser;
let adminToken: string;
const downloads = mkdtempSync(join(tmpdir(), "bookdist-publisher-day-"));

async function api(method: string, path: string, body?: unknown, token = adminToken): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function register(email: string): Promise<{ token: string }> {
  const response = await api("POST", "/authentication/register", { email, password: TEST_PASSWORD }, "");
  expect(response.status).toBe(201);
  return (await response.json()) as { token: string };
}

describe.if(hasChromium && hasPoppler)("a publisher's day in the console, in Chromium", () => {
  beforeAll(async () => {
    server = await startRealServer();
    adminToken = (await register(ADMIN)).token;
    await grantAdminWithCli(ADMIN, server.dataEnv);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(downloads, { recursive: true, force: true });
  });

  test("sign in, book, cover, EPUB, 500 codes, redeem, revoke, grant, shop, audit, sign out", async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.addInitScript(CSP_WATCH + PROGRESS_WATCH);
    // A download the page hands to the browser ends its request as "aborted"; nothing failed.
    const watched = watch(page, {
      ignoreFailed: (request) => /\/codes\.csv|\/sheet\.pdf/.test(request.url()),
    });
    const blocked: string[] = [];
    const checkCsp = async () => {
      blocked.push(...(await cspViolations(page)));
    };
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText, the text as rendered
    const main = () => page.locator("main").innerText();
    const url = server.url;

    // 1. Sign in with the keyboard; create a book through the form, submitted with Enter.
    await signInWithKeyboard(page, url, ADMIN, TEST_PASSWORD);
    await page.goto(`${url}/console/books/new`);
    const bookForm = page.locator('form[aria-label="New book"]');
    await bookForm.locator('[name="title"]').fill("A Day at the Press");
    await bookForm.locator('[name="author"]').fill("Pat Publisher");
    await bookForm.locator('[name="language"]').fill("en");
    await bookForm.locator('[name="description"]').fill("Made in the console.");
    await Promise.all([
      page.waitForURL(/\/console\/books\/\d+(\?|$)/),
      bookForm.locator('[name="language"]').press("Enter"),
    ]);
    const bookId = Number(/\/console\/books\/(\d+)(\?|$)/.exec(page.url())?.[1]);
    expect(await main()).toContain("A Day at the Press");
    const book = (await (await api("GET", `/book/${bookId}`)).json()) as Record<string, unknown>;
    expect([book.title, book.author, book.language]).toEqual(["A Day at the Press", "Pat Publisher", "en"]);
    await checkCsp();

    // 2. A cover, then a version and its EPUB archive: the progress bar reaches 100 % each time.
    const uploadThrough = async (
      form: ReturnType<Page["locator"]>,
      file: { name: string; mimeType: string; buffer: Buffer },
    ) => {
      await page.evaluate("sessionStorage.setItem('progress-max', '0')");
      await form.locator('input[type="file"]').setInputFiles(file);
      const before = page.url();
      await Promise.all([
        page.waitForURL((u) => u.toString() !== before),
        form.locator('button[type="submit"]').click(),
      ]);
      await page.waitForLoadState("load");
      return Number(await page.evaluate("sessionStorage.getItem('progress-max')"));
    };
    const png = makePng({ width: 40, height: 60, colorType: 2, bitDepth: 8 });
    expect(
      await uploadThrough(page.locator('form[aria-label="Upload cover"]'), {
        name: "cover.png",
        mimeType: "image/png",
        buffer: Buffer.from(png),
      }),
    ).toBe(100);
    const shown = page.locator(`img[src^="/console/books/${bookId}/cover?v="]`);
    expect(await shown.count()).toBe(1);
    // Loaded under the console's CSP: the preview is same-origin (README "Console").
    type Img = { decode(): Promise<void>; naturalWidth: number };
    expect(await shown.evaluate((img: Img) => img.decode().then(() => img.naturalWidth))).toBe(40);
    expect((await api("GET", `/book/${bookId}/cover`, undefined, "")).status).toBe(200);
    await checkCsp();

    const versionForm = page.locator('form[aria-label="New version"]');
    await versionForm.locator('[name="versionCode"]').fill("1");
    await versionForm.locator('[name="versionName"]').fill("1.0");
    await Promise.all([
      page.waitForURL(/done=version-created/),
      versionForm.locator('button[type="submit"]').click(),
    ]);
    const epub = buildEpub("epub3");
    expect(
      await uploadThrough(page.locator('form[aria-label="Upload archive of version 1"]'), {
        name: "day.epub",
        mimeType: "application/epub+zip",
        buffer: Buffer.from(epub),
      }),
    ).toBe(100);
    expect(await main()).toContain("EPUB title");
    const versions = (await (await api("GET", `/book/${bookId}/bookversions`)).json()) as Record<
      string,
      unknown
    >[];
    expect(versions).toHaveLength(1);
    expect((versions[0]?.archive as { size: number } | null)?.size).toBe(epub.length);
    await checkCsp();

    // 3. A print run of 500 codes; its CSV (500 rows) and its PDF sheet (poppler reads 500 codes).
    await page.goto(`${url}/console/books/${bookId}/print-runs/new`);
    const runForm = page.locator('form[aria-label="New print run"]');
    await runForm.locator('[name="quantity"]').fill("500");
    await runForm.locator('[name="label"]').fill("Launch print");
    await Promise.all([
      page.waitForURL(/\/console\/print-runs\/\d+(\?|$)/),
      runForm.locator('button[type="submit"]').click(),
    ]);
    const batchId = Number(/\/console\/print-runs\/(\d+)(\?|$)/.exec(page.url())?.[1]);
    expect(await main()).toContain("Launch print");
    const [csvDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.locator(`a[href="/console/print-runs/${batchId}/codes.csv"]`).click(),
    ]);
    const csvPath = join(downloads, "codes.csv");
    await csvDownload.saveAs(csvPath);
    const csvLines = readFileSync(csvPath, "utf8").trim().split(/\r?\n/);
    expect(csvLines).toHaveLength(501);
    const [pdfDownload] = await Promise.all([
      page.waitForEvent("download"),
      page.locator('form[aria-label="Download the PDF sheet"] button[type="submit"]').click(),
    ]);
    const pdfPath = join(downloads, "sheet.pdf");
    await pdfDownload.saveAs(pdfPath);
    const codes = (await (await api("GET", `/activation-qr-code/ofbook/${bookId}?limit=1000`)).json()) as {
      id: number;
      code: string;
    }[];
    const printed = codes.map((c) => c.code);
    expect(new Set(printed).size).toBe(500);
    const text = Bun.spawnSync(["pdftotext", "-layout", pdfPath, "-"]).stdout.toString();
    const csv = csvLines.join("\n");
    expect(printed.filter((code) => !text.includes(code))).toEqual([]);
    expect(printed.filter((code) => !csv.includes(code))).toEqual([]);
    await checkCsp();

    // 4. A reader redeems one code over the API; the console finds it by the code; revoke that
    // activation on its confirmation page; grant the book by hand to another reader.
    const reader = await register(READER);
    const code = printed[7]!;
    const redeemed = await api("POST", "/activation/by-qr-code", { code }, reader.token);
    expect(redeemed.status).toBe(201);
    const activation = (await redeemed.json()) as { id: number; userUuid: string };
    await page.goto(`${url}/console/codes?q=${encodeURIComponent(code)}`);
    expect(await main()).toContain(code);
    expect(await main()).toContain("1 of 1");
    await Promise.all([
      page.waitForURL(new RegExp(`/console/activations/${activation.id}/revoke`)),
      page.locator(`a[href="/console/activations/${activation.id}/revoke"]`).first().click(),
    ]);
    await Promise.all([
      page.waitForURL((u) => !u.pathname.endsWith("/revoke")),
      page.getByRole("button", { name: "Revoke" }).click(),
    ]);
    expect((await api("GET", `/activation/${activation.id}`)).status).toBe(404);
    const mine = (await (await api("GET", "/book/my-books", undefined, reader.token)).json()) as unknown[];
    expect(mine).toEqual([]);
    await checkCsp();

    const granted = await register(GRANTED);
    await page.goto(`${url}/console/activations/new`);
    const grantForm = page.locator('form[aria-label="Grant a book"]');
    await grantForm.locator('[name="book"]').fill(String(bookId));
    await grantForm.locator('[name="email"]').fill(GRANTED);
    await Promise.all([
      page.waitForURL((u) => !u.pathname.endsWith("/activations/new")),
      grantForm.locator('button[type="submit"]').click(),
    ]);
    const grantedBooks = (await (await api("GET", "/book/my-books", undefined, granted.token)).json()) as {
      id?: number;
      bookId?: number;
    }[];
    expect(grantedBooks).toHaveLength(1);
    await checkCsp();

    // 5. A bookapp APK uploaded through the form (progress to 100 %) and activated, a newer one
    // (same signer, versionCode 11) uploaded and activated, then rolled back to the first.
    if (hasAndroidTools) {
      const workshop = new ApkWorkshop();
      try {
        const key = workshop.key("RSA");
        const apks = [
          await workshop.build({ versionCode: 10, signer: key }),
          await workshop.build({ versionCode: 11, signer: key }),
        ];
        for (const [i, apk] of apks.entries()) {
          await page.goto(`${url}/console/apks`);
          expect(
            await uploadThrough(page.locator('form[aria-label="Upload a bookapp APK"]'), {
              name: `bookapp-${i}.apk`,
              mimeType: "application/vnd.android.package-archive",
              buffer: Buffer.from(apk.bytes),
            }),
          ).toBe(100);
          expect(page.url()).toMatch(/\/console\/apks\/\d+\?done=apk-uploaded/);
          await Promise.all([
            page.waitForURL(/done=apk-activated/),
            page.locator('form[aria-label="Activate the APK"] button[type="submit"]').click(),
          ]);
          const active = (await (await api("GET", "/apk/active", undefined, "")).json()) as {
            bookapp: { versionCode: number } | null;
          };
          expect(active.bookapp?.versionCode).toBe(10 + i);
        }
        await page.goto(`${url}/console/apks`);
        await Promise.all([
          page.waitForURL((u) => u.pathname !== "/console/apks" || u.search !== ""),
          page.locator('form[aria-label="Roll the bookapp back"] button[type="submit"]').click(),
        ]);
        const rolledBack = (await (await api("GET", "/apk/active", undefined, "")).json()) as {
          bookapp: { versionCode: number } | null;
        };
        expect(rolledBack.bookapp?.versionCode).toBe(10);
        await checkCsp();
      } finally {
        workshop.dispose();
      }
    }

    // 6. Map a shop product to the book; the audit log lists the day's changes; sign out.
    await page.goto(`${url}/console/shop`);
    const shopForm = page.locator('form[aria-label="Map a product"]');
    await shopForm.locator('[name="book"]').fill(String(bookId));
    await shopForm.locator('[name="product"]').fill("4242");
    await Promise.all([
      page.waitForURL(/done=product-mapped/),
      shopForm.locator('button[type="submit"]').click(),
    ]);
    expect(await main()).toContain("4242");
    await checkCsp();

    await page.goto(`${url}/console/audit`);
    const audit = await main();
    for (const action of [
      "book.create",
      "book.cover",
      "bookversion.create",
      "bookversion.upload",
      "batch.create",
      "activation.delete",
      "activation.create",
      "shopproduct.create",
      ...(hasAndroidTools ? ["apk.upload", "apk.activate"] : []),
    ]) {
      expect([action, audit.includes(action)]).toEqual([action, true]);
    }
    await checkCsp();

    await page.locator(".sign-out button").focus();
    await Promise.all([page.waitForURL(/\/console\/login/), page.keyboard.press("Enter")]);
    expect((await context.cookies()).find((c) => c.name === "__Host-bookdist-console")).toBeUndefined();
    await checkCsp();

    expect(blocked).toEqual([]);
    expect(watched.problems).toEqual([]);
    await context.close();
  }, 180_000);
});
