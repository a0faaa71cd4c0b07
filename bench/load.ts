// Load benchmark (issue 17, "Performance"): the real server on SQLite with 1,000 books, 100,000
// QR codes and 10,000 users, driven by wrk over loopback — authenticated GET /book/my-books and
// GET /book/{id}, and POST /activation/by-qr-code with fresh codes — next to a floor measured in
// the same run: a bare Bun.serve that does the same work by hand (HS256 on node:crypto, the
// session row, the same SQL as prepared bun:sqlite statements, JSON.stringify). Besides req/s
// and p99 it prints each server's CPU time per request, so a ratio can be read as cost.
//
// Run: bun bench/load.ts        (needs wrk: apt-get install -y wrk; about a minute)
//      BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/load.ts
//                               (also the app's three endpoints on a fresh Postgres database of
//                                that server, dropped afterwards; about two minutes)
//      BENCH_ONLY=book,redeem bun bench/load.ts   (those scenarios alone)
//      BENCH_PROFILE=/tmp/prof bun bench/load.ts  (the app under Bun's sampling profiler, which
//                               writes a .cpuprofile and a markdown summary there at its exit)
// Internal: bun bench/load.ts floor DB_PATH PORT SECRET   (the floor server, started by the above)
import { Database as Sqlite } from "bun:sqlite";
import { createHmac, createSecretKey, timingSafeEqual } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { passwordStampOf, sessionStampOf } from "../src/auth/password-stamp";
import { TokenSigner } from "../src/auth/tokens";
import { openDatabase } from "../src/db/client";
import { withTransaction } from "../src/db/transaction";
import { sessionIdHash } from "../src/lib/session-id";
import { insertQrCodes } from "../src/repositories/qr-codes";
import { generateActivationCode } from "../src/services/activation-code";
import { childEnv } from "../test/helpers/child-env";
import { FLOOR_SQL } from "./floor-sql";
import { createPostgresDatabase } from "./lib";

const BOOKS = 1_000;
const QR_CODES = 100_000;
const USERS = 10_000;
const BOOKS_PER_USER = 5;
const SECRET = "load-bench-secret-load-bench-secret-0123";
const ISSUER = "bookdist";
const PORTS = { app: 18281, floor: 18282 };
/**
 * Each server is measured in turns, app and floor alternating. On a shared VM one long run each
 * lets a slow spell land on one side only (the floor alone has swung between 22k and 40k req/s
 * from one run to the next here, and a whole machine between 3k and 9k on my-books within a
 * minute), so the ratio is taken turn by turn — each app turn against the floor turn right after
 * it, in the same spell — and the median of those ratios is the run's ratio.
 */
const TURNS = 5;
// wrk takes whole seconds. Each redemption needs a fresh code; a server that redeems more than the
// seeded ones would run dry (a fast machine's floor redeems over 50,000 in its turns), so before
// every redemption run its codes are topped up for twice the rate of its last run (codeTopUp).
const TURN_S = { read: 2, redeem: 1 };
const WARMUP_S = { read: 2, redeem: 1 };
const CONNECTIONS = 32;

// ---------------------------------------------------------------------------------------------
// Orchestration

// Issue 41's targets (issue 17's were 0.75 / 0.7, issue 26's redemption 0.5).
const ALL_SCENARIOS = [
  { name: "GET /book/my-books", mode: "mybooks", target: 0.8 },
  { name: "GET /book/{id}", mode: "book", target: 0.7 },
  { name: "POST /activation/by-qr-code", mode: "redeem", target: 0.65 },
] as const;
type Scenario = (typeof ALL_SCENARIOS)[number];
/** `BENCH_ONLY=book,redeem` runs those scenarios alone (a quicker look while working on one). */
const SCENARIOS: readonly Scenario[] = process.env.BENCH_ONLY
  ? ALL_SCENARIOS.filter((s) => process.env.BENCH_ONLY!.split(",").includes(s.mode))
  : ALL_SCENARIOS;

/** A server under load: its base URL, its pid (for CPU time) and the codes only it redeems. */
interface Target {
  label: string;
  origin: string;
  pid: number;
  /** One code a line; wrk reads it afresh each run, so codes appended between runs count. */
  codesFile: string;
  /** How many codes the file holds, and how many of them runs have used (or may have). */
  codeCount: number;
  codeOffset: number;
  /** Redemptions per second of its last run; null before the first. */
  lastRate: number | null;
}

/**
 * Before a redemption run, a target must hold fresh codes for twice the rate of its last run
 * (or FIRST_RATE_GUESS before its first), so wrk never runs out. Above the fastest floor measured
 * so far (~18,000/s: 55.5 µs of CPU per request), so a first run does not run dry either.
 */
const FIRST_RATE_GUESS = 25_000;
/** Inserts `count` fresh codes into the servers' database and returns them. */
type CodeTopUp = (count: number) => Promise<string[]>;

async function main(): Promise<void> {
  if (Bun.which("wrk") === null) throw new Error("wrk is missing: apt-get install -y wrk");
  const work = mkdtempSync(join(tmpdir(), "bookdist-bench-load-"));
  const dataDir = join(work, "data");
  mkdirSync(dataDir);
  const dbPath = join(dataDir, "bookdist.sqlite");
  const children: Subprocess[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  try {
    const seeded = await timedSeed(`sqlite:${dbPath}`, "SQLite");
    writeFileSync(join(work, "tokens.txt"), `${seeded.tokens.join("\n")}\n`);
    // Each server redeems its own half of the codes, so every redemption meets a fresh code.
    const half = seeded.codes.length / 2;
    writeFileSync(join(work, "codes-app.txt"), `${seeded.codes.slice(0, half).join("\n")}\n`);
    writeFileSync(join(work, "codes-floor.txt"), `${seeded.codes.slice(half).join("\n")}\n`);
    writeFileSync(join(work, "load.lua"), LUA);

    const app = spawnApp(PORTS.app, { DATA_DIR: dataDir });
    children.push(app);
    const floor = Bun.spawn(["bun", import.meta.path, "floor", dbPath, String(PORTS.floor), SECRET], {
      stdout: "inherit",
      stderr: "inherit",
    });
    children.push(floor);
    const base = { app: `http://127.0.0.1:${PORTS.app}`, floor: `http://127.0.0.1:${PORTS.floor}` };
    await Promise.all([waitFor(`${base.app}/health`), waitFor(`${base.floor}/health`)]);
    addFloorSessions(dbPath, seeded.sessionRows);
    await sanityCheck(base, seeded.tokens[0]!);

    const targets: Target[] = [
      {
        label: "app",
        origin: base.app,
        pid: app.pid,
        codesFile: join(work, "codes-app.txt"),
        codeCount: half,
        codeOffset: 0,
        lastRate: null,
      },
      {
        label: "floor",
        origin: base.floor,
        pid: floor.pid,
        codesFile: join(work, "codes-floor.txt"),
        codeCount: half,
        codeOffset: 0,
        lastRate: null,
      },
    ];
    const sqlite = new Map<Scenario["name"], Record<string, WrkResult>>();
    const sqliteTopUp = await openCodeTopUp(`sqlite:${dbPath}`);
    cleanups.push(sqliteTopUp.close);
    for (const scenario of SCENARIOS) {
      sqlite.set(scenario.name, await measure(work, scenario, targets, sqliteTopUp.topUp));
    }
    // The SQLite servers are done: a Postgres run must not share the two cores with them.
    for (const child of children.splice(0)) {
      child.kill("SIGTERM");
      await child.exited;
    }

    let postgres: Map<Scenario["name"], WrkResult> | null = null;
    const postgresUrl = process.env.BENCH_DATABASE_URL;
    if (postgresUrl) {
      const database = await createPostgresDatabase(postgresUrl);
      cleanups.push(database.drop);
      const pgSeeded = await timedSeed(database.url, "Postgres");
      writeFileSync(join(work, "tokens-pg.txt"), `${pgSeeded.tokens.join("\n")}\n`);
      writeFileSync(join(work, "codes-pg.txt"), `${pgSeeded.codes.join("\n")}\n`);
      const pgDataDir = join(work, "data-pg");
      mkdirSync(pgDataDir);
      const pgApp = spawnApp(PORTS.app, { DATA_DIR: pgDataDir, DATABASE_URL: database.url });
      children.push(pgApp);
      await waitFor(`${base.app}/health`);
      const pgTarget: Target = {
        label: "app",
        origin: base.app,
        pid: pgApp.pid,
        codesFile: join(work, "codes-pg.txt"),
        codeCount: pgSeeded.codes.length,
        codeOffset: 0,
        lastRate: null,
      };
      const pgTopUp = await openCodeTopUp(database.url);
      cleanups.unshift(pgTopUp.close);
      postgres = new Map();
      for (const scenario of SCENARIOS) {
        const result = await measure(work, scenario, [pgTarget], pgTopUp.topUp, "tokens-pg.txt");
        postgres.set(scenario.name, result.app!);
      }
    }
    report(sqlite, postgres);
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map((child) => child.exited));
    for (const cleanup of cleanups) await cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}

async function timedSeed(url: string, label: string) {
  const started = performance.now();
  const seeded = await seed(url);
  console.log(
    `${label}: seeded ${BOOKS} books, ${QR_CODES} QR codes, ${USERS} users (${USERS * BOOKS_PER_USER} activations) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return seeded;
}

/**
 * `BENCH_PROFILE=<dir>` starts the app under Bun's sampling profiler (every 100 µs), which writes
 * a .cpuprofile and a markdown summary there when it exits: where the app's time goes under the
 * same load. The profiler's own cost is in that run's figures, so read its ratios as nothing.
 */
const PROFILE_DIR = process.env.BENCH_PROFILE;
const PROFILE_FLAGS = PROFILE_DIR
  ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${PROFILE_DIR}`, "--cpu-prof-interval=100"]
  : [];

function spawnApp(port: number, env: Record<string, string>): Subprocess {
  return Bun.spawn(["bun", ...PROFILE_FLAGS, "src/index.ts"], {
    cwd: join(import.meta.dir, ".."),
    env: childEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      THROTTLE: "off",
      LOG_LEVEL: "warn",
      JWT_SECRET: SECRET,
      JWT_ISSUER: ISSUER,
      ...env,
    }),
    stdout: "inherit",
    stderr: "inherit",
  });
}

/** Warm-up, then TURNS turns per target in alternation; the median turn of each target. */
async function measure(
  work: string,
  scenario: Scenario,
  targets: Target[],
  topUp: CodeTopUp,
  tokensFile = "tokens.txt",
): Promise<Record<string, WrkResult>> {
  const kind = scenario.mode === "redeem" ? "redeem" : "read";
  const turns = new Map<string, WrkResult[]>(targets.map((t) => [t.label, []]));
  const run = async (target: Target, seconds: number) => {
    if (scenario.mode === "redeem") await ensureFreshCodes(target, seconds, topUp);
    const before = cpuTicksOf(target.pid);
    const result = wrk(target.origin, seconds, [
      join(work, tokensFile),
      scenario.mode,
      target.codesFile,
      String(target.codeOffset),
    ]);
    const after = cpuTicksOf(target.pid);
    const usPerRequest = (ticks: number) => (ticks * 1e6) / CLOCK_TICKS / result.requests;
    result.cpuUsPerRequest = usPerRequest(after.user + after.system - before.user - before.system);
    result.systemUsPerRequest = usPerRequest(after.system - before.system);
    if (scenario.mode === "redeem") {
      // Requests still in flight when wrk stopped took codes too.
      target.codeOffset += result.requests + CONNECTIONS;
      target.lastRate = result.rps;
      // Out of fresh codes, wrk stops early and the rate would be understated.
      if (target.codeOffset >= target.codeCount) throw new Error(`${target.label} ran out of fresh codes`);
    }
    return result;
  };
  for (const target of targets) await run(target, WARMUP_S[kind]);
  for (let turn = 0; turn < TURNS; turn++) {
    for (const target of targets) turns.get(target.label)!.push(await run(target, TURN_S[kind]));
  }
  return Object.fromEntries([...turns].map(([label, results]) => [label, medianTurn(results)]));
}

/** Tops a target's codes up, between runs, to what a run of `seconds` at twice its last rate uses. */
async function ensureFreshCodes(target: Target, seconds: number, topUp: CodeTopUp): Promise<void> {
  const needed = Math.ceil(2 * (target.lastRate ?? FIRST_RATE_GUESS) * seconds) + CONNECTIONS;
  const missing = needed - (target.codeCount - target.codeOffset);
  if (missing <= 0) return;
  const codes = await topUp(missing);
  appendFileSync(target.codesFile, `${codes.join("\n")}\n`);
  target.codeCount += codes.length;
}

/** A handle on the servers' database that adds fresh single-use codes, spread over the books. */
async function openCodeTopUp(databaseUrl: string): Promise<{ topUp: CodeTopUp; close(): Promise<void> }> {
  const handle = await openDatabase(databaseUrl, { migrate: false });
  const now = new Date();
  let next = 0;
  return {
    async topUp(count) {
      const codes = Array.from({ length: count }, generateActivationCode);
      await withTransaction(handle.db, (tx) =>
        insertQrCodes(
          tx,
          codes.map((code) => ({
            bookId: (next++ % BOOKS) + 1,
            code,
            enabled: true,
            maxActivations: 1,
            label: "load bench top-up",
            expiresAt: null,
            batchId: null,
          })),
          now,
        ),
      );
      return codes;
    },
    close: () => handle.close(),
  };
}

function report(
  sqlite: Map<Scenario["name"], Record<string, WrkResult>>,
  postgres: Map<Scenario["name"], WrkResult> | null,
): void {
  const rows: string[][] = [];
  const verdicts: string[] = [];
  for (const scenario of SCENARIOS) {
    const { app, floor } = sqlite.get(scenario.name) as Record<"app" | "floor", WrkResult>;
    const ratio = pairedMedian(app, floor, (a, f) => a.rps / f.rps);
    const cpuRatio = pairedMedian(app, floor, (a, f) => f.cpuUsPerRequest / a.cpuUsPerRequest);
    verdicts.push(
      `${scenario.name} ${ratio.toFixed(2)} (target ${scenario.target}: ${ratio >= scenario.target ? "met" : "MISSED"})`,
    );
    rows.push([
      scenario.name,
      app.rps.toFixed(0),
      app.p99.toFixed(2),
      cpuCell(app),
      floor.rps.toFixed(0),
      floor.p99.toFixed(2),
      cpuCell(floor),
      ratio.toFixed(2),
      cpuRatio.toFixed(2),
      `${app.failures}/${floor.failures}`,
      app.turns.join(" "),
      floor.turns.join(" "),
    ]);
  }
  printTable(
    [
      "SQLite",
      "app req/s",
      "app p99 ms",
      "app CPU µs/req (kernel)",
      "floor req/s",
      "floor p99 ms",
      "floor CPU µs/req (kernel)",
      "ratio",
      "CPU ratio",
      "non-2xx app/floor",
      "app turns",
      "floor turns",
    ],
    rows,
  );
  if (postgres) {
    printTable(
      ["Postgres (app only)", "req/s", "p99 ms", "CPU µs/req (kernel)", "SQLite req/s", "non-2xx", "turns"],
      SCENARIOS.map((scenario) => {
        const pg = postgres.get(scenario.name)!;
        const lite = sqlite.get(scenario.name)!.app!;
        return [
          scenario.name,
          pg.rps.toFixed(0),
          pg.p99.toFixed(2),
          cpuCell(pg),
          lite.rps.toFixed(0),
          String(pg.failures),
          pg.turns.join(" "),
        ];
      }),
    );
    console.log(
      "Postgres CPU µs/req is the bookdist process only; the database server's own CPU is not in it.",
    );
  }
  console.log(
    `\nwrk: 1 thread, ${CONNECTIONS} connections; ${TURNS} turns per server, app and floor alternating, of ${TURN_S.read} s for reads and ${TURN_S.redeem} s for redemptions, after ${WARMUP_S.read} s and ${WARMUP_S.redeem} s of warm-up; req/s, p99 and CPU from each server's median turn, non-2xx summed; tokens rotate over ${USERS} users. CPU µs/req: the server process's utime + stime over the turn (/proc/<pid>/stat) divided by its requests, and in parentheses its stime alone (the kernel: sockets, wake-ups, page faults). ratio: app req/s / floor req/s, CPU ratio: floor CPU / app CPU, each the median over the turns of the app's turn against the floor's turn right after it.`,
  );
  console.log(`ratio to the floor: ${verdicts.join("; ")}`);
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** A CPU cell: µs per request, and in parentheses the kernel's part of it. */
function cpuCell(result: WrkResult): string {
  return `${result.cpuUsPerRequest.toFixed(1)} (${result.systemUsPerRequest.toFixed(1)})`;
}

/** utime and stime of a process so far, in clock ticks. */
function cpuTicksOf(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis don't.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

async function waitFor(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** Both servers answer the same thing for the same request, or the comparison means nothing. */
async function sanityCheck(base: { app: string; floor: string }, token: string): Promise<void> {
  const headers = { Authorization: `Bearer ${token}` };
  for (const path of ["/book/my-books", "/book/17"]) {
    const [app, floor] = await Promise.all(
      [base.app, base.floor].map(async (origin) => {
        const response = await fetch(`${origin}${path}`, { headers });
        if (response.status !== 200)
          throw new Error(`${origin}${path}: ${response.status} ${await response.text()}`);
        return response.json();
      }),
    );
    if (JSON.stringify(app) !== JSON.stringify(floor)) {
      throw new Error(
        `${path}: the floor answers differently\napp:   ${JSON.stringify(app).slice(0, 300)}\nfloor: ${JSON.stringify(floor).slice(0, 300)}`,
      );
    }
  }
}

interface WrkResult {
  rps: number;
  p99: number;
  requests: number;
  failures: number;
  /** Server CPU time (user + system) per request over the turn. */
  cpuUsPerRequest: number;
  /** The kernel's part of it (stime). */
  systemUsPerRequest: number;
  /** Every turn's req/s, for the printout. */
  turns: string[];
  /** Every turn, in order: the app's and the floor's turn of the same index ran one after the other. */
  perTurn: Array<{ rps: number; cpuUsPerRequest: number }>;
}

function wrk(origin: string, seconds: number, args: string[]): WrkResult {
  const scriptDir = join(args[0]!, "..");
  const result = Bun.spawnSync(
    [
      "wrk",
      "-t1",
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      "-s",
      join(scriptDir, "load.lua"),
      origin,
      "--",
      ...args,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = result.stdout.toString();
  const line = out.split("\n").find((l) => l.startsWith("RESULT "));
  if (result.exitCode !== 0 || !line) throw new Error(`wrk failed: ${out}${result.stderr.toString()}`);
  const summary = JSON.parse(line.slice("RESULT ".length)) as {
    requests: number;
    duration_us: number;
    p99_us: number;
    non2xx: number;
    errors: number;
  };
  return {
    rps: summary.requests / (summary.duration_us / 1e6),
    p99: summary.p99_us / 1000,
    requests: summary.requests,
    failures: summary.non2xx + summary.errors,
    cpuUsPerRequest: 0,
    systemUsPerRequest: 0,
    turns: [],
    perTurn: [],
  };
}

/** The median over the turns of `ratio` between the app's turn and the floor's turn after it. */
function pairedMedian(
  app: WrkResult,
  floor: WrkResult,
  ratio: (app: WrkResult["perTurn"][number], floor: WrkResult["perTurn"][number]) => number,
): number {
  const ratios = app.perTurn.map((turn, i) => ratio(turn, floor.perTurn[i]!)).sort((a, b) => a - b);
  return ratios[Math.floor(ratios.length / 2)]!;
}

/** The turn with the median rate (its own p99 with it), and the failures of all turns. */
function medianTurn(turns: WrkResult[]): WrkResult {
  const sorted = [...turns].sort((a, b) => a.rps - b.rps);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return {
    ...median,
    failures: turns.reduce((sum, t) => sum + t.failures, 0),
    turns: turns.map((t) => t.rps.toFixed(0)),
    perTurn: turns.map((t) => ({ rps: t.rps, cpuUsPerRequest: t.cpuUsPerRequest })),
  };
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  console.log(`\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of rows) console.log(line(row));
}

// One thread: a single counter walks the tokens (and, for redemptions, the fresh codes) in order.
const LUA = `
local tokens, codes, mode, offset, counter = {}, {}, nil, 0, 0
function init(args)
  for line in io.lines(args[1]) do tokens[#tokens + 1] = line end
  mode = args[2]
  if mode == "redeem" then
    for line in io.lines(args[3]) do codes[#codes + 1] = line end
    offset = tonumber(args[4])
  end
end
function request()
  counter = counter + 1
  local headers = { ["Authorization"] = "Bearer " .. tokens[(counter % #tokens) + 1] }
  if mode == "mybooks" then return wrk.format("GET", "/book/my-books", headers) end
  if mode == "book" then return wrk.format("GET", "/book/" .. ((counter * 7919) % ${BOOKS} + 1), headers) end
  headers["Content-Type"] = "application/json"
  local code = codes[math.min(offset + counter, #codes)]
  return wrk.format("POST", "/activation/by-qr-code", headers, '{"code":"' .. code .. '"}')
end
-- A redemption run ends when its fresh codes do: a code used twice would measure something else.
function response(status, headers, body)
  if mode == "redeem" and offset + counter >= #codes then wrk.thread:stop() end
end
function done(summary, latency, requests)
  io.write(string.format('RESULT {"requests":%d,"duration_us":%d,"p99_us":%d,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(99), summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
`;

// ---------------------------------------------------------------------------------------------
// Seeding: straight into the database through Drizzle and the repositories. Registering 10,000
// users through the API would spend minutes in bcrypt; the users' rows and sessions are written
// directly and their tokens signed with the server's secret.

/** A seeded session row, as the floor reads it: by the token's raw `sid`. */
type SessionRow = Record<string, string | number>;

export async function seed(
  databaseUrl: string,
): Promise<{ tokens: string[]; codes: string[]; sessionRows: SessionRow[] }> {
  const handle = await openDatabase(databaseUrl, { migrate: true });
  const { db } = handle;
  const t = db.tables;
  const now = new Date();
  const chunks = <T>(items: T[], size: number) =>
    Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

  const codes = Array.from({ length: QR_CODES }, generateActivationCode);
  const users = Array.from({ length: USERS }, (_, i) => ({
    uuid: crypto.randomUUID(),
    sid: crypto.randomUUID(),
    id: i + 1,
  }));
  // Sessions are seen and checked "a few minutes from now", so none is due its account re-check
  // (and the last_seen_at write that goes with it) during the run: the floor does neither.
  const lastSeenAt = new Date(now.getTime() + 10 * 60_000);
  const expiresAt = new Date(now.getTime() + 30 * 86_400_000);
  const sha256 = "0".repeat(64);

  await withTransaction(db, async (tx) => {
    await tx.orm.insert(t.blob).values({ sha256, size: 1_048_576, createdAt: now });
    for (const part of chunks(
      Array.from({ length: BOOKS }, (_, i) => ({
        title: `Book ${i + 1}`,
        author: `Author ${i % 97}`,
        isbn: null,
        description: "A book seeded for the load benchmark.",
        language: "en",
        createdAt: now,
        updatedAt: now,
      })),
      500,
    )) {
      await tx.orm.insert(t.book).values(part);
    }
    // Two versions per book; the second has an archive, so every book has a newest version.
    for (const part of chunks(
      Array.from({ length: BOOKS * 2 }, (_, i) => ({
        bookId: Math.floor(i / 2) + 1,
        versionCode: (i % 2) + 1,
        versionName: `1.${i % 2}`,
        releaseNotes: null,
        ...(i % 2 === 1
          ? {
              archiveSha256: sha256,
              archiveSize: 1_048_576,
              archiveFilename: "book.zip",
              archiveUploadedAt: now,
            }
          : {}),
        createdAt: now,
        updatedAt: now,
      })),
      500,
    )) {
      await tx.orm.insert(t.bookVersion).values(part);
    }
    await insertQrCodes(
      tx,
      codes.map((code, i) => ({
        bookId: (i % BOOKS) + 1,
        code,
        enabled: true,
        maxActivations: 1,
        label: "load bench",
        expiresAt: null,
        batchId: null,
      })),
      now,
    );
    for (const part of chunks(users, 500)) {
      await tx.orm.insert(t.storeUser).values(
        part.map((u) => ({
          id: u.id,
          userLogin: `reader${u.id}`,
          // Nobody logs in during the benchmark: no password hash is needed.
          userPass: "!",
          userNicename: `reader${u.id}`,
          userEmail: `reader${u.id}@example.com`,
          userUrl: "",
          userRegistered: now,
          userActivationKey: "",
          userStatus: 0,
          displayName: `Reader ${u.id}`,
        })),
      );
      await tx.orm
        .insert(t.storeUserLink)
        .values(part.map((u) => ({ uuid: u.uuid, storeUserId: String(u.id), createdAt: now })));
      await tx.orm.insert(t.userSession).values(
        part.map((u) => ({
          // The app stores a session by its id's digest (README "Admins", sessions).
          id: sessionIdHash(u.sid),
          userUuid: u.uuid,
          storeUserId: String(u.id),
          createdAt: now,
          lastSeenAt,
          expiresAt,
          userAgent: "load-bench",
          clientAddress: "127.0.0.1",
          isAdmin: false,
          passwordStamp: sessionStampOf(SECRET, passwordStampOf("!")),
          checkedAt: lastSeenAt,
        })),
      );
      await tx.orm.insert(t.activation).values(
        part.flatMap((u) =>
          Array.from({ length: BOOKS_PER_USER }, (_, j) => ({
            bookId: ((u.id * BOOKS_PER_USER + j * 13) % BOOKS) + 1,
            userUuid: u.uuid,
            qrCodeId: null,
            createdAt: new Date(now.getTime() - (BOOKS_PER_USER - j) * 60_000),
            updatedAt: now,
          })),
        ),
      );
    }
  });
  await handle.close();

  const signer = new TokenSigner(SECRET, ISSUER);
  const tokens = users.map((u) =>
    signer.sign({
      sub: u.uuid,
      sid: u.sid,
      roles: ["user"],
      email: `reader${u.id}@example.com`,
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(expiresAt.getTime() / 1000),
    }),
  );
  const sessionRows = users.map((u) => ({
    id: u.sid,
    user_uuid: u.uuid,
    store_user_id: String(u.id),
    created_at: now.getTime(),
    last_seen_at: lastSeenAt.getTime(),
    expires_at: expiresAt.getTime(),
    password_stamp: sessionStampOf(SECRET, passwordStampOf("!")),
    checked_at: lastSeenAt.getTime(),
  }));
  return { tokens, codes, sessionRows };
}

/**
 * The floor reads a session by the token's raw `sid`, as the app did before it stored digests
 * (issue 34): its code stays as its figures were measured, so each session also gets a row
 * under its raw id, added once the app has started (its start-up would hash a raw id into the
 * digest row's key). The app never reads these rows.
 */
function addFloorSessions(dbPath: string, rows: SessionRow[]): void {
  const db = new Sqlite(dbPath);
  db.exec("PRAGMA busy_timeout = 5000");
  const insert = db.prepare(
    `INSERT INTO user_session (id, user_uuid, store_user_id, created_at, last_seen_at, expires_at, user_agent,
       client_address, is_admin, password_stamp, checked_at)
     VALUES ($id, $user_uuid, $store_user_id, $created_at, $last_seen_at, $expires_at, 'load-bench', '127.0.0.1', 0,
       $password_stamp, $checked_at)`,
  );
  db.transaction(() => {
    for (const row of rows) insert.run(Object.fromEntries(Object.entries(row).map(([k, v]) => [`$${k}`, v])));
  })();
  db.close();
}

// ---------------------------------------------------------------------------------------------
// The floor: what the endpoints cost with no framework at all — the same checks and the same SQL
// as prepared bun:sqlite statements, by hand.

function serveFloor(dbPath: string, port: number, secret: string): void {
  const db = new Sqlite(dbPath, { strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA synchronous = NORMAL");
  const key = createSecretKey(Buffer.from(secret, "utf8"));
  const expectedHeader = Buffer.from(JSON.stringify({ alg: "HS256", typ: "JWT" })).toString("base64url");

  const session = db.query(FLOOR_SQL.session);
  const book = db.query(FLOOR_SQL.book);
  const heldBooks = db.query(FLOOR_SQL.heldBooks);
  const qrByCode = db.query("SELECT * FROM activation_qr_code WHERE code = ?1 LIMIT 1");
  const heldActivation = db.query("SELECT * FROM activation WHERE user_uuid = ?1 AND book_id = ?2 LIMIT 1");
  const consume = db.query(
    `UPDATE activation_qr_code SET activation_count = activation_count + 1, updated_at = ?2
     WHERE id = ?1 AND enabled = 1 AND activation_count < max_activations RETURNING id`,
  );
  const insertActivation = db.query(
    `INSERT INTO activation (book_id, user_uuid, qr_code_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4) RETURNING *`,
  );

  const problem = (status: number) => new Response(JSON.stringify({ status }), { status });

  function principal(request: Request): { userUuid: string } | null {
    const header = request.headers.get("authorization");
    if (!header?.startsWith("Bearer ")) return null;
    const [head, payload, signature] = header.slice(7).split(".");
    if (head !== expectedHeader || !payload || !signature) return null;
    const mac = createHmac("sha256", key).update(`${head}.${payload}`).digest();
    const given = Buffer.from(signature, "base64url");
    if (given.length !== mac.length || !timingSafeEqual(given, mac)) return null;
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      sub: string;
      sid: string;
      exp: number;
    };
    const now = Date.now();
    if (claims.exp * 1000 <= now) return null;
    const row = session.get(claims.sid) as { user_uuid: string; expires_at: number } | null;
    if (!row || row.user_uuid !== claims.sub || row.expires_at <= now) return null;
    return { userUuid: claims.sub };
  }

  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const toBook = (r: any) => ({
    id: r.id,
    title: r.title,
    author: r.author,
    isbn: r.isbn,
    description: r.description,
    language: r.language,
    cover: r.cover_sha256
      ? {
          contentType: "image/png",
          size: r.cover_size,
          sha256: r.cover_sha256,
          width: r.cover_width,
          height: r.cover_height,
          updatedAt: iso(r.cover_updated_at),
        }
      : null,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });
  const toPrefixedVersion = (r: any) => ({
    id: r.v_id,
    bookId: r.v_book_id,
    versionCode: r.v_version_code,
    versionName: r.v_version_name,
    releaseNotes: r.v_release_notes,
    archive: r.v_archive_sha256
      ? {
          size: r.v_archive_size,
          sha256: r.v_archive_sha256,
          filename: r.v_archive_filename,
          uploadedAt: iso(r.v_archive_uploaded_at),
          // An archive's format (issue 40): epub only with its metadata, as the app reads it.
          ...(r.v_archive_format === "epub" && r.v_archive_epub !== null
            ? { format: "epub", epub: JSON.parse(r.v_archive_epub) }
            : { format: "zip", epub: null }),
        }
      : null,
    createdAt: iso(r.v_created_at),
    updatedAt: iso(r.v_updated_at),
  });
  const toActivation = (r: any) => ({
    id: r.id,
    bookId: r.book_id,
    userUuid: r.user_uuid,
    qrCodeId: r.qr_code_id,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  });
  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "Content-Type": "application/json", ...headers },
    });

  Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      if (url.pathname === "/health") return json({ status: "ok" });
      const caller = principal(request);
      if (!caller) return problem(401);
      if (request.method === "GET" && url.pathname === "/book/my-books") {
        const rows = heldBooks.all(caller.userUuid) as any[];
        const items = rows.map((r) => ({
          activationId: r.a_id,
          activatedAt: iso(r.a_created_at),
          book: toBook(r),
          newestVersion: r.v_id === null ? null : toPrefixedVersion(r),
        }));
        const total = items.length;
        return json(items, 200, { "X-Total-Count": String(total) });
      }
      const match = /^\/book\/(\d+)$/.exec(url.pathname);
      if (request.method === "GET" && match) {
        const row = book.get(Number(match[1]));
        return row ? json(toBook(row)) : problem(404);
      }
      if (request.method === "POST" && url.pathname === "/activation/by-qr-code") {
        const { code } = (await request.json()) as { code: string };
        const now = Date.now();
        db.exec("BEGIN IMMEDIATE");
        try {
          const qr = qrByCode.get(code) as { id: number; book_id: number; enabled: number } | null;
          if (!qr) {
            db.exec("ROLLBACK");
            return problem(404);
          }
          const held = heldActivation.get(caller.userUuid, qr.book_id);
          if (held) {
            db.exec("COMMIT");
            return json(toActivation(held), 200);
          }
          if (!consume.get(qr.id, now)) {
            db.exec("ROLLBACK");
            return problem(409);
          }
          const created = insertActivation.get(qr.book_id, caller.userUuid, qr.id, now);
          db.exec("COMMIT");
          return json(toActivation(created), 201);
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      }
      return problem(404);
    },
  });
}

// Last, so that every constant above is initialised before either mode runs.
if (process.argv[2] === "floor") {
  const [, , , dbPath, port, secret] = process.argv;
  serveFloor(dbPath!, Number(port), secret!);
} else if (import.meta.main) {
  await main();
}
