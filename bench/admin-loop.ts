// Admin work and the event loop (issue 26, finding 5): how long each heavy admin request holds the
// real server's loop, seen by a probe that GETs /health every 10 ms while the request runs. The
// probe's longest wait is the longest the loop was held (plus one /health); its p99 is what any
// other client meets meanwhile. Targets: no hold over
// 50 ms, /health p99 under 100 ms while the 10,000-code sheet renders.
// Run: bun bench/admin-loop.ts   (SQLite; BENCH_DATABASE_URL=postgres://… for Postgres; ~1 min)
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { fmt, freePort, json, startBookdist, tempDir } from "./lib";

const CODES = 10_000;
const work = tempDir("bookdist-bench-admin-loop-");
const postgresUrl = process.env.BENCH_DATABASE_URL;
let databaseUrl: string | undefined;
let dropDatabase = async () => {};
if (postgresUrl) {
  const name = `bookdist_bench_admin_${crypto.randomUUID().replaceAll("-", "").slice(0, 8)}`;
  const admin = new SQL(postgresUrl);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  dropDatabase = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  };
}
const server = await startBookdist({
  port: freePort(),
  dataDir: join(work, "data"),
  env: databaseUrl ? { DATABASE_URL: databaseUrl } : {},
});

interface Probed {
  ms: number;
  probes: number;
  maxWait: number;
  p99: number;
  median: number;
}

/** Runs `request` to its last byte while /health is asked every 10 ms, one probe at a time. */
async function probed(request: () => Promise<unknown>): Promise<Probed> {
  const waits: number[] = [];
  let running = true;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(`${server.url}/health`)).arrayBuffer();
      waits.push(performance.now() - started);
      await Bun.sleep(10);
    }
  })();
  await Bun.sleep(50);
  const started = performance.now();
  await request();
  const ms = performance.now() - started;
  running = false;
  await probe;
  const sorted = [...waits].sort((a, b) => a - b);
  return {
    ms,
    probes: waits.length,
    maxWait: sorted.at(-1) ?? 0,
    median: sorted[Math.floor(sorted.length / 2)] ?? 0,
    p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
  };
}

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
  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.arrayBuffer();
  };
  // Warm up: the first sheet loads pdf-lib, the first PNG zlib.
  const warm = await json<Array<{ id: number; batchId: number }>>(
    await post("/activation-qr-code/batch", { bookId: book.id, quantity: 30 }, token),
  );
  await get(`/activation-qr-code/batch/${warm[0]!.batchId}/sheet.pdf`);
  await get(`/activation-qr-code/${warm[0]!.id}/qr?size=128`);

  const rows: Array<[string, Probed]> = [["nothing (idle server)", await probed(() => Bun.sleep(1000))]];
  let batch: Array<{ id: number; batchId: number }> = [];
  rows.push([
    `POST /activation-qr-code/batch (${CODES} codes)`,
    await probed(async () => {
      batch = await json(
        await post("/activation-qr-code/batch", { bookId: book.id, quantity: CODES }, token),
      );
    }),
  ]);
  const sheet = `/activation-qr-code/batch/${batch[0]!.batchId}/sheet.pdf`;
  rows.push([`GET sheet.pdf 4×6 (${CODES} codes)`, await probed(() => get(sheet))]);
  rows.push([
    `GET sheet.pdf 1×1 (${CODES} codes)`,
    await probed(() => get(`${sheet}?columns=1&rows=1&symbolMm=100`)),
  ]);
  const one = batch[0]!.id;
  rows.push([`GET /qr?size=2048`, await probed(() => get(`/activation-qr-code/${one}/qr?size=2048`))]);
  rows.push([`GET /qr.svg`, await probed(() => get(`/activation-qr-code/${one}/qr.svg`))]);
  rows.push([
    "GET /qr?size=2048 ×8 at once",
    await probed(() =>
      Promise.all(batch.slice(1, 9).map(({ id }) => get(`/activation-qr-code/${id}/qr?size=2048`))),
    ),
  ]);

  console.log(`admin work vs. the event loop (${databaseUrl ? "Postgres" : "SQLite"}), /health every 10 ms`);
  console.log("| request | took | probes | /health median | /health p99 | longest /health |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, r] of rows) {
    console.log(
      `| ${name} | ${fmt(r.ms, 0)} ms | ${r.probes} | ${fmt(r.median, 1)} ms | ${fmt(r.p99, 0)} ms | ${fmt(r.maxWait, 0)} ms |`,
    );
  }
} finally {
  await server.stop();
  await dropDatabase();
  rmSync(work, { recursive: true, force: true });
}
