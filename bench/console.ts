// Console pages at a publisher's scale (issue 39, API.md §10: "Every page renders in ≤ 100 ms on
// the server and holds the event loop ≤ 50 ms at a publisher's scale"): the scale bench's data
// (scale-seed.ts), the real server, the bench's admin signed in to the console (POST /console/login,
// its __Host- cookie sent back as a header: curl and fetch send a Secure cookie over plain http when
// told to), then every console screen with realistic parameters. Each page is sent by curl 7 times
// (median of the total time), while scale.ts's probe sends a reader's GET /book/1 every 50 ms: its
// p99 and max are what the page held the event loop for everybody else.
//
// Run: bun bench/console.ts          S2 (10,000 books, 1.2 M codes, 100,000 users) on SQLite
//      bun bench/console.ts --s3     S3 (100,000 books, 10.2 M codes, 5 M activations, 1 M users)
//      BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/console.ts
//                                    also on a fresh database of that server, dropped afterwards
//      BENCH_SQLITE=0                Postgres only (with BENCH_DATABASE_URL)
//      BENCH_SEED_ONLY=1             with BENCH_DATABASE_URL: seed a fresh Postgres database, keep it,
//                                    print its URL and stop (S3: ~11 min to seed idle)
//      BENCH_SEEDED_DATABASE_URL=…   measure once on that Postgres database, seeded by BENCH_SEED_ONLY at the same
//                                    size (not seeded again; kept afterwards: drop it yourself)
//      BENCH_ONLY=users,activations  only the pages whose path contains one of these
import { rmSync } from "node:fs";
import { join } from "node:path";
import { childEnv } from "../test/helpers/child-env";
import { createPostgresDatabase, fmt, freePort, median, startBookdist, tempDir } from "./lib";
import { type Session, seededEarlier, sessionsOn, startProbe } from "./scale";
import { BIG_BATCH_ID, BIG_BOOK_ID, countsOf, type Seeded, SIZES, seedScale, uuidOf } from "./scale-seed";

const SIZE = process.argv.includes("--s3") ? SIZES.S3 : process.argv.includes("--s1") ? SIZES.S1 : SIZES.S2;
const ONLY = process.env.BENCH_ONLY?.split(",") ?? null;
const REPEATS = 7;
/** API.md §10. */
const RENDER_MS = 100;
const LOOP_MS = 50;
const ADMIN = { email: "scale-admin@example.com", password: "scale bench password 1" };

interface Measured {
  path: string;
  medianMs: number;
  bytes: number;
  probeP99Ms: number;
  probeMaxMs: number;
  failure?: string;
}

/** Every screen, with the parameters a publisher would use on this data. */
function pagesOf(seeded: Seeded): string[] {
  const smallBook = Math.floor(SIZE.books / 2);
  const code = seeded.freshCodes[0]!;
  const users = ["email", "login"].flatMap((sort) =>
    ["asc", "desc"].map((dir) => `/console/users?q=reader1&sort=${sort}&dir=${dir}`),
  );
  return [
    "/console",
    "/console?days=90",
    "/console/books",
    "/console/books?sort=title&dir=asc",
    "/console/books?q=Book%204711",
    "/console/books?q=Book%201",
    `/console/books/${BIG_BOOK_ID}`,
    `/console/books/${smallBook}`,
    "/console/print-runs",
    `/console/print-runs?bookId=${BIG_BOOK_ID}`,
    `/console/print-runs/${BIG_BATCH_ID}`,
    `/console/codes?q=${encodeURIComponent(code)}`,
    `/console/codes?q=${encodeURIComponent(code.toLowerCase().replaceAll("-", ""))}`,
    "/console/activations",
    "/console/activations?page=100",
    `/console/activations?book=${BIG_BOOK_ID}`,
    `/console/activations?book=${smallBook}`,
    "/console/activations?source=code",
    "/console/activations?source=code&page=10",
    "/console/activations?source=order",
    "/console/activations?source=manual",
    `/console/activations?user=${uuidOf(1)}`,
    `/console/activations?user=${encodeURIComponent("reader1@example.com")}`,
    "/console/activations?from=2025-01-10&to=2025-01-10",
    "/console/activations?from=2025-01-10&to=2025-01-10&source=code",
    `/console/activations?book=${BIG_BOOK_ID}&source=code`,
    "/console/users",
    "/console/users?q=reader1",
    ...users,
    "/console/users?q=reader1&page=10",
    "/console/users?q=reader12345",
    "/console/users?q=Reader%201",
    `/console/users/${uuidOf(1)}`,
    "/console/shop",
    "/console/apks",
    "/console/audit",
    "/console/system",
  ].filter((path) => !ONLY || ONLY.some((part) => path.includes(part)));
}

async function main(): Promise<void> {
  if (Bun.which("curl") === null) throw new Error("curl is missing: apt-get install -y curl");
  const counts = countsOf(SIZE);
  console.log(
    `${SIZE.name}: ${counts.books} books, ${counts.users} users, ${counts.activations} activations, ${counts.qrCodes} QR codes`,
  );
  const tables: Array<{ label: string; seedSeconds: number; load: string; rows: Measured[] }> = [];
  const work = tempDir("bookdist-bench-console-");
  try {
    const seededUrl = process.env.BENCH_SEEDED_DATABASE_URL;
    if (seededUrl) {
      tables.push(
        await onDatabase(
          seededUrl.startsWith("postgres") ? "Postgres" : "SQLite",
          seededUrl,
          join(work, "seeded"),
          false,
        ),
      );
      for (const table of tables) report(table);
      return;
    }
    if (process.env.BENCH_SEED_ONLY === "1") {
      const database = await createPostgresDatabase(process.env.BENCH_DATABASE_URL!, "bookdist_console");
      const seeded = await seedScale(database.url, SIZE);
      console.log(
        `seeded ${SIZE.name} in ${fmt(seeded.seconds)} s: BENCH_SEEDED_DATABASE_URL=${database.url}`,
      );
      return;
    }
    if (process.env.BENCH_SQLITE !== "0") {
      tables.push(
        await onDatabase("SQLite", `sqlite:${join(work, "bookdist.sqlite")}`, join(work, "sqlite")),
      );
      rmSync(join(work, "bookdist.sqlite"), { force: true });
    }
    const postgresUrl = process.env.BENCH_DATABASE_URL;
    if (postgresUrl) {
      const database = await createPostgresDatabase(postgresUrl, "bookdist_console");
      try {
        tables.push(await onDatabase("Postgres", database.url, join(work, "pg")));
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const table of tables) report(table);
}

async function onDatabase(label: string, databaseUrl: string, dataDir: string, seed = true) {
  let seeded: Seeded;
  if (seed) {
    console.log(`${label}: seeding ${SIZE.name}…`);
    seeded = await seedScale(databaseUrl, SIZE);
    console.log(`${label}: seeded in ${fmt(seeded.seconds)} s`);
  } else {
    seeded = await seededEarlier(databaseUrl, performance.now());
  }
  const port = freePort();
  const env = {
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "warn",
    THROTTLE: "off",
    JWT_SECRET: "console-bench-secret-0123456789-console",
  };
  // Start-up runs the migrations a branch adds (an index over millions of rows): give it time.
  const server = await startBookdist({ port, dataDir, env, startTimeoutMs: 900_000 });
  const rows: Measured[] = [];
  try {
    await untilIdle(server.process.pid);
    const session = await sessionsOn(server.url, server.process.pid, childEnv(env));
    const cookie = await consoleSignIn(server.url);
    // The probe alone for a second: its own latency on this machine now, the floor of its column.
    const idle = startProbe(session);
    await Bun.sleep(1000);
    const floor = await idle.stop();
    rows.push({
      path: "(none: the probe alone, 1 s)",
      medianMs: 0,
      bytes: 0,
      probeP99Ms: floor.p99,
      probeMaxMs: floor.max,
    });
    for (const path of pagesOf(seeded)) {
      const measured = await measurePage(session, cookie, path);
      rows.push(measured);
      console.log(`${label}  ${line(measured)}`);
      if (server.process.exitCode !== null) throw new Error(`the server ended at ${path}`);
    }
  } finally {
    await server.stop();
  }
  const load = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
  return { label, seedSeconds: seeded.seconds, load, rows };
}

/**
 * Waits until the server's CPU time grows by under 5 % over half a second (at most 5 minutes):
 * start-up's backfills (archive recognition, partial MD5: every seeded archive, whose blob the
 * bench never wrote, fails and is logged) would otherwise run beside the first pages.
 */
async function untilIdle(pid: number): Promise<void> {
  const cpuMs = async () => {
    const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  };
  const deadline = Date.now() + 300_000;
  let before = await cpuMs();
  while (Date.now() < deadline) {
    await Bun.sleep(500);
    const now = await cpuMs();
    if (now - before < 25) return;
    before = now;
  }
}

/** POST /console/login as a browser's form sends it; the session cookie's value. */
async function consoleSignIn(url: string): Promise<string> {
  const response = await fetch(`${url}/console/login`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: url,
      "Sec-Fetch-Site": "same-origin",
    },
    body: new URLSearchParams(ADMIN).toString(),
  });
  const cookie = /(__Host-bookdist-console=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];
  if (response.status !== 303 || !cookie) {
    throw new Error(`console sign-in: ${response.status} ${await response.text()}`);
  }
  return cookie;
}

async function measurePage(session: Session, cookie: string, path: string): Promise<Measured> {
  const probe = startProbe(session);
  const times: number[] = [];
  let bytes = 0;
  let failure: string | undefined;
  for (let run = 0; run < REPEATS && failure === undefined; run++) {
    const args = [
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "--max-time",
      "300",
      "-w",
      "%{http_code} %{size_download} %{time_total}",
    ];
    args.push("-H", `Cookie: ${cookie}`, `${session.url}${path}`);
    const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    const [status, size, seconds] = out.trim().split(" ");
    times.push(Number(seconds) * 1000);
    bytes = Number(size);
    if (code !== 0) failure = `curl exit ${code}`;
    else if (status !== "200") failure = `status ${status}`;
  }
  const probed = await probe.stop();
  return {
    path,
    medianMs: median(times),
    bytes,
    probeP99Ms: probed.p99,
    probeMaxMs: probed.max,
    ...(failure === undefined ? {} : { failure }),
  };
}

function verdictOf(m: Measured): string {
  if (m.failure !== undefined) return `FAILED: ${m.failure}`;
  if (m.path.startsWith("(")) return "the probe's floor";
  const render = m.medianMs <= RENDER_MS ? "met" : "MISSED";
  const loop = m.probeMaxMs <= LOOP_MS ? "met" : m.probeP99Ms <= LOOP_MS ? "met (p99)" : "MISSED";
  return `render ${render}, loop ${loop}`;
}

function line(m: Measured): string {
  return `${m.path}: ${fmt(m.medianMs, 1)} ms, ${m.bytes} B, probe p99 ${fmt(m.probeP99Ms)} / max ${fmt(m.probeMaxMs)} ms — ${verdictOf(m)}`;
}

function report(table: { label: string; seedSeconds: number; load: string; rows: Measured[] }): void {
  const header = [
    "page",
    "median ms",
    "bytes",
    "probe p99 ms",
    "probe max ms",
    "target (≤ 100 ms, loop ≤ 50 ms)",
  ];
  const cells = table.rows.map((m) => [
    `\`${m.path}\``,
    fmt(m.medianMs, 1),
    m.bytes.toLocaleString("en-US"),
    fmt(m.probeP99Ms),
    fmt(m.probeMaxMs),
    verdictOf(m),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const format = (row: string[]) =>
    `| ${row.map((c, i) => (i === 0 || i === row.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  const missed = table.rows.filter((m) => /MISSED|FAILED/.test(verdictOf(m))).length;
  console.log(
    `\n${table.label}, ${SIZE.name} (seeded in ${fmt(table.seedSeconds)} s; load average at the end ${table.load}): ${table.rows.length - missed} of ${table.rows.length} pages meet both targets`,
  );
  console.log(format(header));
  console.log(
    `| ${widths.map((w, i) => (i === 0 || i === widths.length - 1 ? "-".repeat(w) : `${"-".repeat(w - 1)}:`)).join(" | ")} |`,
  );
  for (const row of cells) console.log(format(row));
}

await main();
