// Reading progress (README "Reading progress"): a position write is one indexed upsert on the
// (user, book) key, a read one indexed read. Times, against the real server on SQLite and on a
// fresh Postgres database, `PUT /book/{id}/progress`, `GET /book/{id}/progress` and KOReader's
// `PUT /kosync/syncs/progress` (which first finds the version by its partial MD5), each next to
// `GET /book/{id}` measured in the same run as the baseline: sequential requests over loopback,
// median and p99, and the ratio of medians to the baseline's (an admin's PUT /book/{id} is timed
// too, to show what any write costs on that database).
// Run: bun bench/progress.ts   (about a minute; BENCH_DATABASE_URL, default the local Postgres;
// BENCH_SQLITE_ONLY=1 skips Postgres; PROGRESS_REQUESTS, default 2000 per operation)
import { createHash } from "node:crypto";
import { createPostgresDatabase, fmt, freePort, json, startBookdist, tempDir } from "./lib";

const REQUESTS = Number(process.env.PROGRESS_REQUESTS ?? 2000);
const EMAIL = "bench-reader@example.com";
const ADMIN = "bench-admin@example.com";
const PASSWORD = "bench password that is long enough";

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(count: number, request: (i: number) => Promise<Response>, expectStatus: number) {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await request(i);
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status !== expectStatus)
      throw new Error(`status ${response.status}, expected ${expectStatus}`);
  }
  times.sort((a, b) => a - b);
  return { median: percentile(times, 50), p99: percentile(times, 99) };
}

async function run(label: string, env: Record<string, string>) {
  const server = await startBookdist({ port: freePort(), dataDir: tempDir("bookdist-bench-progress-"), env });
  try {
    const call = (
      method: string,
      path: string,
      init: {
        token?: string;
        json?: unknown;
        headers?: Record<string, string>;
        body?: RequestInit["body"];
      } = {},
    ) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: {
          ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
          ...(init.json !== undefined ? { "Content-Type": "application/json" } : {}),
          ...init.headers,
        },
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
      });
    const register = async (email: string) =>
      await json<{ token: string; user: { uuid: string } }>(
        await call("POST", "/authentication/register", { json: { email, password: PASSWORD } }),
      );
    await register(ADMIN);
    await server.admin("grant", ADMIN);
    const admin = await json<{ token: string }>(
      await call("POST", "/authentication/login", { json: { email: ADMIN, password: PASSWORD } }),
    );
    const reader = await register(EMAIL);
    const book = await json<{ id: number }>(
      await call("POST", "/book", { token: admin.token, json: { title: "Bench" } }),
    );
    const version = await json<{ id: number }>(
      await call("POST", "/bookversion", {
        token: admin.token,
        json: { bookId: book.id, versionCode: 1, versionName: "1" },
      }),
    );
    // A small zip (stored, one entry) as the archive: its partial MD5 is KOReader's document.
    const { makeZip } = await import("../test/helpers/zip");
    const archive = makeZip({ "book.txt": "bench ".repeat(2000) });
    const form = new FormData();
    form.append("file", new Blob([archive]), "bench.zip");
    const uploaded = await call("POST", `/bookversion/${version.id}/upload`, {
      token: admin.token,
      body: form,
    });
    if (uploaded.status !== 200) throw new Error(`upload: ${uploaded.status}`);
    const { partialMd5 } = await import("../src/storage/partial-md5");
    const document = await partialMd5(
      async (s, e) => new DataView(archive.buffer.slice(s, e)),
      archive.length,
    );
    await call("POST", "/activation", {
      token: admin.token,
      json: { bookId: book.id, userUuid: reader.user.uuid },
    });
    const token = await json<{ token: string }>(
      await call("POST", "/authentication/device-token", {
        token: reader.token,
        json: { name: "bench", password: PASSWORD, scopes: ["sync"] },
      }),
    );
    const kosyncHeaders = {
      "x-auth-user": EMAIL,
      "x-auth-key": createHash("md5").update(token.token).digest("hex"),
      Accept: "application/vnd.koreader.v1+json",
      "Content-Type": "application/json",
    };
    const start = Date.now() - 3_600_000;
    // Warm-up, then the turns.
    for (let i = 0; i < 200; i++)
      await (await call("GET", `/book/${book.id}`, { token: reader.token })).arrayBuffer();
    const baseline = await timed(
      REQUESTS,
      () => call("GET", `/book/${book.id}`, { token: reader.token }),
      200,
    );
    // A write of the same size class, for the writes' scale: an admin's PUT /book/{id}.
    const writeBaseline = await timed(
      REQUESTS,
      (i) => call("PUT", `/book/${book.id}`, { token: admin.token, json: { title: `Bench ${i}` } }),
      200,
    );
    const put = await timed(
      REQUESTS,
      (i) =>
        call("PUT", `/book/${book.id}/progress`, {
          token: reader.token,
          json: {
            percentage: (i % 1000) / 1000,
            locator: { href: "ch1.xhtml", type: "application/xhtml+xml", locations: { progression: 0.5 } },
            device: "bench",
            modified: new Date(start + i).toISOString(),
          },
        }),
      200,
    );
    const get = await timed(
      REQUESTS,
      () => call("GET", `/book/${book.id}/progress`, { token: reader.token }),
      200,
    );
    const kosync = await timed(
      REQUESTS,
      (i) =>
        call("PUT", "/kosync/syncs/progress", {
          headers: kosyncHeaders,
          body: JSON.stringify({
            document,
            progress: `/body/p[${i}]`,
            percentage: 0.5,
            device: "bench",
            device_id: "B",
          }),
        }),
      200,
    );
    const rows: [string, { median: number; p99: number }][] = [
      ["GET /book/{id} (baseline)", baseline],
      ["PUT /book/{id} (a write, for scale)", writeBaseline],
      ["PUT /book/{id}/progress", put],
      ["GET /book/{id}/progress", get],
      ["PUT /kosync/syncs/progress", kosync],
    ];
    console.log(`\n${label}: ${REQUESTS} sequential requests each (ms)`);
    console.log("| operation | median | p99 | median / baseline |");
    console.log("|---|---|---|---|");
    for (const [name, r] of rows)
      console.log(
        `| ${name} | ${fmt(r.median, 2)} | ${fmt(r.p99, 2)} | ${fmt(r.median / baseline.median, 2)} |`,
      );
  } finally {
    await server.stop();
  }
}

await run("SQLite", {});
if (process.env.BENCH_SQLITE_ONLY !== "1") {
  const database = await createPostgresDatabase(
    process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    "bookdist_bench_progress",
  );
  try {
    await run("Postgres", { DATABASE_URL: database.url });
  } finally {
    await database.drop();
  }
}
