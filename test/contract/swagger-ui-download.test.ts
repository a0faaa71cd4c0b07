// Saving a print run from Swagger UI in a real browser (Chromium through playwright-core) against
// the real server: "Try it out" → "Execute" on the sheet and the CSV, then "Download file". The
// saved files carry the names the server gives (`<book title> - <label>.pdf`, non-ASCII intact)
// and are what they say they are — not a `response_….txt` of the PDF's bytes read as text.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Locator, type Page } from "playwright-core";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { childEnv } from "../helpers/child-env";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { requireTool, startsRealServer } from "../helpers/requires";
import { TEST_PASSWORD } from "../helpers/test-app";

const runs = startsRealServer() && requireTool("chromium", "chromium");
const ADMIN = "swagger-download@example.com";
const TITLE = "Čaj & Käse – Band 2";
const LABEL = "Erste Auflage";

let server: RealServer;
let browser: Browser;
let token: string;
let batchId: number;
let saved: string;

describe.if(runs)("Swagger UI saves a print run's files", () => {
  beforeAll(async () => {
    server = await startRealServer();
    saved = mkdtempSync(join(tmpdir(), "bookdist-swagger-download-"));
    const session = await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password: TEST_PASSWORD }),
    });
    expect(session.status).toBe(201);
    token = ((await session.json()) as { token: string }).token;
    await grantAdminWithCli(ADMIN, server.dataEnv);
    const call = async (path: string, body: unknown) => {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
      return response.json();
    };
    const book = (await call("/book", { title: TITLE })) as { id: number };
    const codes = (await call("/activation-qr-code/batch", {
      bookId: book.id,
      quantity: 3,
      label: LABEL,
    })) as {
      batchId: number;
    }[];
    batchId = codes[0]!.batchId;
    // As in swagger-ui.test.ts: no sandbox (CI runs as root), and no throttling of the headless
    // page as a background one (Playwright's waits poll on its animation frames).
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
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (saved) rmSync(saved, { recursive: true, force: true });
  });

  /** Expands an operation, fills its `id`, executes it and saves what "Download file" offers. */
  async function download(page: Page, operationId: string): Promise<{ name: string; bytes: Buffer }> {
    const operation: Locator = page.locator(`[id="operations-Activation_QR_code-${operationId}"]`);
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.locator('tr[data-param-name="id"] input').fill(String(batchId));
    const answered = page.waitForResponse((r) =>
      new URL(r.url()).pathname.startsWith("/activation-qr-code/batch/"),
    );
    await operation.getByRole("button", { name: "Execute" }).click();
    expect((await answered).status()).toBe(200);
    const link = operation.locator(".live-responses-table a", { hasText: "Download file" });
    const started = page.waitForEvent("download");
    await link.click();
    const file = await started;
    const path = join(saved, `${operationId}.download`);
    await file.saveAs(path);
    return { name: file.suggestedFilename(), bytes: readFileSync(path) };
  }

  test("the sheet is saved as `<book title> - <label>.pdf`, a real PDF; the CSV as .csv", async () => {
    const context = await browser.newContext({
      acceptDownloads: true,
      viewport: { width: 1280, height: 1000 },
    });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    // Script errors of the page (the favicon's 404 is none).
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${server.url}/swagger-ui`);
    // The first render parses the whole document: slow on a busy machine.
    await page.locator(".opblock-tag-section").first().waitFor({ timeout: 60_000 });

    await page.locator(".auth-wrapper .authorize").click();
    const bearer = page.locator(".auth-container", { hasText: "bearerAuth" });
    await bearer.locator("input").fill(token);
    await bearer.locator(".auth-btn-wrapper .authorize").click();
    await bearer.locator(".auth-btn-wrapper button", { hasText: "Logout" }).waitFor();
    await page.locator(".dialog-ux .btn-done").first().click();

    const sheet = await download(page, "getQrCodeBatchSheet");
    expect(sheet.name).toBe(`${TITLE} - ${LABEL}.pdf`);
    expect(sheet.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(sheet.bytes.subarray(-8).toString("latin1")).toContain("%%EOF");
    if (Bun.which("pdfinfo")) {
      const pdfPath = join(saved, "sheet.pdf");
      await Bun.write(pdfPath, sheet.bytes);
      const info = Bun.spawnSync(["pdfinfo", pdfPath], { env: childEnv() });
      expect(info.exitCode).toBe(0);
      expect(info.stdout.toString()).toMatch(/^Pages:\s+1$/m);
    }

    const csv = await download(page, "getQrCodeBatchCsv");
    expect(csv.name).toBe(`${TITLE} - ${LABEL}.csv`);
    const rows = csv.bytes.toString("utf8").trimEnd().split("\r\n");
    expect(rows[0]).toBe("code,id,status,activationCount,createdAt");
    expect(rows).toHaveLength(4);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
