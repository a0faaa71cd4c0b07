// Print-sheet benchmark (issue 7): GET /activation-qr-code/batch/{id}/sheet.pdf for a batch of
// 10,000 codes through the real server — time to the first byte, total time, size, and the
// server's resident memory while it writes the PDF — then the same document's figures when it is
// made by pdf-lib's PDFDocument, which holds every page until save(), for comparison.
// Run: bun bench/sheet.ts   (loopback only; under a minute; needs pdfinfo from poppler-utils)
import { rmSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument, PDFOperator, StandardFonts } from "pdf-lib";
import { printSheet } from "../src/print/print-sheet";
import { qrPdfOperators, qrVector } from "../src/print/qr-vector";
import { planSheet } from "../src/print/sheet-layout";
import { generateActivationCode } from "../src/services/activation-code";
import { currentRssMiB, fmt, freePort, json, peakRssMiB, startBookdist, tempDir } from "./lib";

const CODES = 10_000;
const work = tempDir("bookdist-bench-sheet-");
const server = await startBookdist({
  port: freePort(),
  dataDir: join(work, "data"),
});

try {
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  const { token } = await json(
    await post("/authentication/register", { email: "bench-admin@example.com", password: "bench-password" }),
  );
  await server.admin("grant", "bench-admin@example.com");
  const book = await json(await post("/book", { title: "Benchmark book" }, token));
  const codes = await json<Array<{ batchId: number }>>(
    await post("/activation-qr-code/batch", { bookId: book.id, quantity: CODES, label: "Bench run" }, token),
  );
  const batchId = codes[0]!.batchId;
  Bun.gc(true);
  await Bun.sleep(500);
  const pid = server.process.pid;
  const before = await currentRssMiB(pid);
  const peakBefore = await peakRssMiB(pid);

  // Sample the server's RSS while the PDF streams (VmHWM alone would include the batch insert).
  let sampledPeak = before;
  const sampler = setInterval(async () => {
    sampledPeak = Math.max(sampledPeak, await currentRssMiB(pid));
  }, 20);
  const started = performance.now();
  const response = await fetch(`${server.url}/activation-qr-code/batch/${batchId}/sheet.pdf`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) throw new Error(`sheet: ${response.status} ${await response.text()}`);
  const file = Bun.file(join(work, "sheet.pdf")).writer();
  let firstByte = 0;
  let bytes = 0;
  for await (const chunk of response.body!) {
    if (bytes === 0) firstByte = performance.now() - started;
    bytes += chunk.byteLength;
    file.write(chunk);
  }
  await file.end();
  const total = performance.now() - started;
  clearInterval(sampler);
  sampledPeak = Math.max(sampledPeak, await currentRssMiB(pid));
  const peakAfter = await peakRssMiB(pid);

  const info = Bun.spawnSync(["pdfinfo", join(work, "sheet.pdf")], { stdout: "pipe" }).stdout.toString();
  const pages = /^Pages:\s+(\d+)/m.exec(info)?.[1] ?? "?";

  console.log(`sheet.pdf of ${CODES} codes through the server (4 × 6 per A4 page, 30 mm symbols)`);
  console.log(`  pages ${pages}, ${fmt(bytes / 1024 / 1024, 2)} MiB`);
  console.log(`  first byte after ${fmt(firstByte, 0)} ms, complete after ${fmt(total / 1000, 2)} s`);
  console.log(
    `  server RSS: ${fmt(before)} MiB before, peak ${fmt(sampledPeak)} MiB while streaming (+${fmt(sampledPeak - before)} MiB); VmHWM ${fmt(peakBefore)} → ${fmt(peakAfter)} MiB`,
  );

  // Whether the writer keeps anything per page: the live heap (after a full GC) while pages are
  // written, for 10,000 and 50,000 codes in this process. Flat means nothing accumulates.
  for (const count of [CODES, 5 * CODES]) {
    const { heapStart, heapMax, rssMax, seconds, size } = await inProcessSheet(count);
    console.log(
      `in-process writer, ${count} codes: ${fmt(size / 1024 / 1024, 2)} MiB in ${fmt(seconds, 2)} s; live heap ${fmt(heapStart)} MiB at the start, at most ${fmt(heapMax)} MiB while writing; RSS at most ${fmt(rssMax)} MiB`,
    );
  }

  // The comparison: pdf-lib's own document model, same symbols and a page per 24 codes, in this process.
  Bun.gc(true);
  const rssStart = process.memoryUsage().rss / 1024 / 1024;
  let rssPeak = rssStart;
  const t0 = performance.now();
  const doc = await PDFDocument.create();
  await doc.embedFont(StandardFonts.Helvetica);
  let page = doc.addPage([595.28, 841.89]);
  for (let i = 0; i < CODES; i++) {
    if (i > 0 && i % 24 === 0) {
      page = doc.addPage([595.28, 841.89]);
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss / 1024 / 1024);
    }
    const cell = i % 24;
    const x = 40 + (cell % 4) * 134;
    const top = 800 - Math.floor(cell / 4) * 130;
    const operators = qrPdfOperators(qrVector(generateActivationCode()), x, top, 85);
    page.pushOperators(PDFOperator.of(operators as never));
  }
  const saved = await doc.save();
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss / 1024 / 1024);
  console.log(`the same ${CODES} symbols with pdf-lib's PDFDocument (all pages in memory until save())`);
  console.log(
    `  ${fmt(saved.byteLength / 1024 / 1024, 2)} MiB after ${fmt((performance.now() - t0) / 1000, 2)} s; RSS ${fmt(rssStart)} → peak ${fmt(rssPeak)} MiB (+${fmt(rssPeak - rssStart)} MiB), nothing sent before the end`,
  );
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}

async function inProcessSheet(count: number) {
  const mib = (n: number) => n / 1024 / 1024;
  Bun.gc(true);
  const heapStart = mib(process.memoryUsage().heapUsed);
  let heapMax = heapStart;
  let rssMax = mib(process.memoryUsage().rss);
  async function* codes() {
    for (let i = 0; i < count; i++) {
      const code = generateActivationCode();
      yield { code, payload: code };
    }
  }
  const geometry = planSheet({ paper: "A4", columns: 4, rows: 6, symbolMm: 30 });
  const started = performance.now();
  const stream = printSheet(geometry, {
    title: "Benchmark book",
    footer: "Bench",
    documentTitle: "Bench",
    total: count,
    codes: codes(),
  });
  let size = 0;
  let chunks = 0;
  for await (const chunk of stream) {
    size += chunk.byteLength;
    if (++chunks % 100 === 0) {
      rssMax = Math.max(rssMax, mib(process.memoryUsage().rss));
      Bun.gc(true);
      heapMax = Math.max(heapMax, mib(process.memoryUsage().heapUsed));
    }
  }
  return { heapStart, heapMax, rssMax, seconds: (performance.now() - started) / 1000, size };
}
