// A whole list at size: `GET /activation` (or LIST_PATH) over LIST_ROWS (200,000) activations, streamed, while a
// reader's `GET /book/1` is polled every 50 ms. Prints the list's time and size, the server's RSS
// above idle while it streams, and the probe's latencies. SQLite by default; with
// BENCH_DATABASE_URL (a Postgres server) on a fresh database of that server.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SQL } from "bun";
import { currentRssMiB, fmt, freePort, json, peakRssMiB, startBookdist, tempDir } from "./lib";

const ROWS = Number(process.env.LIST_ROWS ?? 200_000);
/** The list to read: `/activation` by default; e.g. `/activation?sort=createdAt,desc&sort=bookId`. */
const PATH = process.env.LIST_PATH ?? "/activation";
const BOOKS = 200;
const serverUrl = process.env.BENCH_DATABASE_URL;

const dataDir = tempDir("bookdist-list-stream-");
let databaseUrl = `sqlite:${join(dataDir, "bookdist.sqlite")}`;
let dropDatabase = async () => {};
if (serverUrl) {
  const name = `wt_lists_bench_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new SQL(serverUrl);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  dropDatabase = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  };
}

const server = await startBookdist({ port: freePort(), dataDir, env: { DATABASE_URL: databaseUrl } });
try {
  const email = "bench-admin@example.com";
  const session = await json<{ token: string }>(
    await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password: "a long bench password" }),
    }),
  );
  await server.admin("grant", email);
  const auth = { Authorization: `Bearer ${session.token}` };

  const seedStart = performance.now();
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  const users = Math.ceil(ROWS / BOOKS);
  if (serverUrl) {
    const sql = new SQL(databaseUrl);
    await sql.unsafe(
      `INSERT INTO book (title, created_at, updated_at) SELECT 'Book ' || i, now(), now() FROM generate_series(1, ${BOOKS}) i`,
    );
    await sql.unsafe(`INSERT INTO activation (book_id, user_uuid, created_at, updated_at)
      SELECT b, md5(u::text)::uuid::text, now(), now()
      FROM generate_series(1, ${users}) u, generate_series(1, ${BOOKS}) b LIMIT ${ROWS}`);
    await sql.unsafe("ANALYZE");
    await sql.close();
  } else {
    const db = new Database(join(dataDir, "bookdist.sqlite"));
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("BEGIN IMMEDIATE");
    const book = db.prepare("INSERT INTO book (title, created_at, updated_at) VALUES (?, ?, ?)");
    for (let i = 1; i <= BOOKS; i++) book.run(`Book ${i}`, base, base);
    const activation = db.prepare(
      "INSERT INTO activation (book_id, user_uuid, created_at, updated_at) VALUES (?, ?, ?, ?)",
    );
    for (let n = 0; n < ROWS; n++) {
      const user = Math.floor(n / BOOKS);
      activation.run(
        (n % BOOKS) + 1,
        `00000000-0000-4000-8000-${String(user).padStart(12, "0")}`,
        base + n,
        base + n,
      );
    }
    db.exec("COMMIT");
    db.close();
  }
  console.log(`seeded ${ROWS} activations in ${fmt((performance.now() - seedStart) / 1000)} s`);

  const pid = server.process.pid;
  await fetch(`${server.url}/book/1`, { headers: auth }).then((r) => r.arrayBuffer());
  Bun.gc(true);
  await Bun.sleep(500);
  const idle = await currentRssMiB(pid);
  const peakBefore = await peakRssMiB(pid);

  let streaming = true;
  const probes: number[] = [];
  const probe = (async () => {
    while (streaming) {
      const at = performance.now();
      await fetch(`${server.url}/book/1`, { headers: auth }).then((r) => r.arrayBuffer());
      probes.push(performance.now() - at);
      await Bun.sleep(50);
    }
  })();
  let rssMax = idle;
  const sampler = setInterval(async () => {
    rssMax = Math.max(rssMax, await currentRssMiB(pid));
  }, 20);

  const start = performance.now();
  const response = await fetch(`${server.url}${PATH}`, { headers: auth });
  const total = response.headers.get("x-total-count");
  let bytes = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
  }
  const seconds = (performance.now() - start) / 1000;
  streaming = false;
  await probe;
  clearInterval(sampler);
  const peakAfter = await peakRssMiB(pid);
  const sorted = [...probes].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  console.log(`database: ${serverUrl ? "postgres" : "sqlite"}`);
  console.log(
    `GET ${PATH}: ${total} rows, ${fmt(bytes / 1024 / 1024)} MiB in ${fmt(seconds, 2)} s (status ${response.status})`,
  );
  console.log(
    `server RSS: idle ${fmt(idle)} MiB, max while streaming ${fmt(rssMax)} MiB (+${fmt(rssMax - idle)}), VmHWM ${fmt(peakBefore)} → ${fmt(peakAfter)} MiB`,
  );
  console.log(
    `GET /book/1 meanwhile (${probes.length} probes): p50 ${fmt(at(0.5))} ms, p99 ${fmt(at(0.99))} ms, max ${fmt(sorted.at(-1) ?? 0)} ms`,
  );
} finally {
  await server.stop();
  await dropDatabase();
}
