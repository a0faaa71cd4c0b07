// Scale benchmark (issue 26, "A publisher's catalogue"): the real server over a database seeded to
// a publisher's size, measured endpoint by endpoint — every count, page 0 of every list with each
// documented sort, the last page of /activation, whole lists and exports, admin work, reads by key,
// the shelf, a redemption and start-up. Each request is sent by curl (so this process stays free
// to watch), while a reader's GET /book/1 is sent every 50 ms (the probe: what everybody else waits)
// and the server's RSS is read from /proc every few ms. One table per database, each row against
// the issue's target ("What must exist when this is done").
//
// Run: bun bench/scale.ts          S2 (10,000 books, 1.2 M codes) on SQLite; a few minutes
//      bun bench/scale.ts --s3     S3 (100,000 books, 10.2 M codes, 5 M activations)
//      bun bench/scale.ts --s1     S1, a quick look
//      BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/scale.ts
//                                  also on a fresh database of that server, dropped afterwards
//                                  (named BENCH_DATABASE_PREFIX, default bookdist_scale, and a
//                                  random suffix)
//      BENCH_ONLY=count,page0      only the rows whose group is named (startup, key, count, page0,
//                                  lastpage, batch, whole, admin)
//      BENCH_PORT=18391            the server's port (default 18291): two benches at once
//      BENCH_SQLITE_SEEDED=<file>  a copy of this SQLite file, seeded at the same size by an
//                                  earlier run or by seedScale, instead of seeding one (the
//                                  server migrates it as it starts)
//      BENCH_SETTLE_S=90           seconds to wait after the last start before the rows: the
//                                  start-up's own work (archive checks of every version) is
//                                  done by then, as it is when the earlier groups run first
//      BENCH_SKIP_SQLITE=1         only the Postgres table
//      BENCH_SEEDED_DATABASE_URL=… the Postgres table on that database, seeded at the same size
//                                  earlier (console.ts's BENCH_SEED_ONLY=1), instead of a fresh
//                                  one; kept afterwards (S3: ~11 min to seed on Postgres idle)
import { Database as Sqlite } from "bun:sqlite";
import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { childEnv } from "../test/helpers/child-env";
import { createPostgresDatabase, fmt, median, projectRoot, tempDir, waitForHttp } from "./lib";
import {
  BIG_BATCH_ID,
  BIG_BOOK_ID,
  countsOf,
  type ScaleSize,
  type Seeded,
  SIZES,
  seedScale,
  uuidOf,
} from "./scale-seed";

const SIZE: ScaleSize = process.argv.includes("--s3")
  ? SIZES.S3
  : process.argv.includes("--s1")
    ? SIZES.S1
    : SIZES.S2;
const GROUPS = process.env.BENCH_ONLY?.split(",") ?? null;
const PORT = Number(process.env.BENCH_PORT ?? 18291);
const PROBE_EVERY_MS = 50;
const RSS_EVERY_MS = 5;
/** Runs of a cheap request (median taken); whole lists and admin work run once. */
const REPEATS = 7;
const PAGE_SIZE = 20;
const STARTS = 3;

/** The issue's targets; a row holds those that apply to it. */
interface Targets {
  medianMs?: number;
  probeP99Ms?: number;
  rssMiB?: number;
}
const FAST: Targets = { medianMs: 20 };
/** Lists, exports and sheets: bounded work per request (README, What is there). */
const BOUNDED: Targets = { probeP99Ms: 100, rssMiB: 128 };
/** Admin work off the loop. */
const OFF_LOOP: Targets = { probeP99Ms: 100 };

interface Row {
  group: "startup" | "key" | "count" | "page0" | "lastpage" | "batch" | "whole" | "admin";
  name: string;
  method?: "GET" | "POST";
  /** The path, or how to find it when the row runs (it may name what an earlier row made). */
  path: string | ((session: Session) => Promise<string>);
  /** The body of run i (so each redemption meets a fresh code). */
  body?: (run: number) => string;
  caller: "admin" | "reader";
  /** Timed to the response's headers, its body then cancelled (a download's first answer). */
  headersOnly?: boolean;
  repeats: number;
  status: number;
  targets: Targets;
}

interface Measured {
  row: Row;
  medianMs: number;
  totalMs: number;
  bytes: number;
  rssMiB: number;
  probeP99Ms: number;
  probeMaxMs: number;
  /** Why the row has no figure: an unexpected status, curl's exit, or the server's end. */
  failure?: string;
}

export interface Session {
  url: string;
  pid: number;
  admin: string;
  reader: string;
}

async function main(): Promise<void> {
  if (Bun.which("curl") === null) throw new Error("curl is missing: apt-get install -y curl");
  const counts = countsOf(SIZE);
  console.log(
    `${SIZE.name}: ${counts.books} books, ${counts.versions} versions, ${counts.users} users, ${counts.activations} activations, ${counts.qrCodes} QR codes`,
  );
  const tables: Array<{ label: string; seedSeconds: number; rows: Measured[] }> = [];
  const work = tempDir("bookdist-bench-scale-");
  try {
    const sqlitePath = join(work, "bookdist.sqlite");
    if (!process.env.BENCH_SKIP_SQLITE)
      tables.push(await onDatabase("SQLite", `sqlite:${sqlitePath}`, work, "data-sqlite"));
    rmSync(sqlitePath, { force: true });
    const postgresUrl = process.env.BENCH_DATABASE_URL;
    const seededPostgresUrl = process.env.BENCH_SEEDED_DATABASE_URL;
    if (seededPostgresUrl) {
      tables.push(await onDatabase("Postgres", seededPostgresUrl, work, "data-pg", false));
    } else if (postgresUrl) {
      const database = await createPostgresDatabase(
        postgresUrl,
        process.env.BENCH_DATABASE_PREFIX ?? "bookdist_scale",
      );
      try {
        tables.push(await onDatabase("Postgres", database.url, work, "data-pg"));
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const table of tables) report(table.label, table.seedSeconds, table.rows);
}

async function onDatabase(
  label: string,
  databaseUrl: string,
  work: string,
  dataDirName: string,
  seed = true,
) {
  console.log(`${label}: ${seed ? "seeding" : "reading back"} ${SIZE.name}…`);
  const seededFile = process.env.BENCH_SQLITE_SEEDED;
  const seeded = !seed
    ? await seededEarlier(databaseUrl, performance.now())
    : seededFile && databaseUrl.startsWith("sqlite:")
      ? await copySeeded(seededFile, databaseUrl.slice("sqlite:".length))
      : await seedScale(databaseUrl, SIZE);
  console.log(`${label}: seeded ${SIZE.name} in ${fmt(seeded.seconds)} s`);
  const env = childEnv({
    PORT: String(PORT),
    HOST: "127.0.0.1",
    DATA_DIR: join(work, dataDirName),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "warn",
    THROTTLE: "off",
    JWT_SECRET: "scale-bench-secret-0123456789-scale-bench",
  });
  const rows: Measured[] = [];
  const startups: number[] = [];
  let server: Subprocess | null = null;
  try {
    // Start-up: spawn to the first answer of /health, the last start kept running.
    for (let start = 0; start < STARTS; start++) {
      if (server) await stop(server);
      const started = performance.now();
      server = Bun.spawn(["bun", "src/index.ts"], {
        cwd: projectRoot,
        env,
        stdout: "inherit",
        stderr: "inherit",
      });
      await waitForHttp(`http://127.0.0.1:${PORT}/health`, 600_000, 10);
      startups.push(performance.now() - started);
    }
    rows.push({
      row: startupRow(),
      medianMs: median(startups),
      totalMs: 0,
      bytes: 0,
      rssMiB: 0,
      probeP99Ms: Number.NaN,
      probeMaxMs: Number.NaN,
    });
    await Bun.sleep(Number(process.env.BENCH_SETTLE_S ?? 0) * 1000);
    const session = await sessionsOn(`http://127.0.0.1:${PORT}`, server!.pid!, env);
    for (const row of await rowsOf(session, seeded)) {
      if (GROUPS && !GROUPS.includes(row.group)) continue;
      const measured = await measureRow(session, row);
      // A whole list can take the server down (out of memory, a string too long): say so, and
      // start it again for the rows after; its sessions are in the database and still valid.
      if (server!.exitCode !== null || server!.signalCode !== null) {
        measured.failure = `${measured.failure ?? "answered"}; the server ended (${server!.signalCode ?? `exit ${server!.exitCode}`})`;
        server = Bun.spawn(["bun", "src/index.ts"], {
          cwd: projectRoot,
          env,
          stdout: "inherit",
          stderr: "inherit",
        });
        await waitForHttp(`http://127.0.0.1:${PORT}/health`, 600_000, 10);
        session.pid = server.pid;
      }
      rows.push(measured);
      console.log(`${label}  ${line(measured)}`);
    }
  } finally {
    if (server) await stop(server);
  }
  return { label, seedSeconds: seeded.seconds, rows };
}

/** A file seeded earlier, copied, and read as seededEarlier reads it. */
async function copySeeded(from: string, to: string): Promise<Seeded> {
  const started = performance.now();
  copyFileSync(from, to);
  return seededEarlier(`sqlite:${to}`, started);
}

/**
 * What a database seeded earlier offers (scale-seed.ts's layout): the first fresh code (id 100p+51)
 * of each of the first 100 print runs that no bench has redeemed from yet (a run with only the
 * seed's 50 redemptions), one per run, so each is of a book the bench's reader does not hold.
 */
export async function seededEarlier(databaseUrl: string, started: number): Promise<Seeded> {
  const query = `SELECT code FROM activation_qr_code
                 WHERE id IN (SELECT min(id) + 50 FROM activation_qr_code WHERE id <= 10000
                              GROUP BY (id - 1) / 100 HAVING sum(activation_count) = 50)
                 ORDER BY id LIMIT 20`;
  let fresh: Array<{ code: string }>;
  if (databaseUrl.startsWith("sqlite:")) {
    const db = new Sqlite(databaseUrl.slice("sqlite:".length), { readonly: true });
    try {
      fresh = db.query(query).all() as Array<{ code: string }>;
    } finally {
      db.close();
    }
  } else {
    const sql = new SQL(databaseUrl, { max: 1 });
    try {
      fresh = (await sql.unsafe(query)) as Array<{ code: string }>;
    } finally {
      await sql.close();
    }
  }
  if (fresh.length < REPEATS) throw new Error(`only ${fresh.length} fresh codes left in ${databaseUrl}`);
  return {
    freshCodes: fresh.map((row) => row.code),
    someQrCodeId: SIZE.books * 100 + 2_001,
    seconds: (performance.now() - started) / 1000,
  };
}

async function stop(server: Subprocess): Promise<void> {
  server.kill("SIGTERM");
  await server.exited;
}

function startupRow(): Row {
  return {
    group: "startup",
    name: "start-up (spawn to /health)",
    path: "",
    caller: "admin",
    repeats: STARTS,
    status: 200,
    targets: {},
  };
}

/**
 * An admin and a reader, registered through the API as anyone would (or signed in, on a database
 * an earlier run registered them in); the admin granted by the CLI.
 */
export async function sessionsOn(
  url: string,
  pid: number,
  env: Record<string, string | undefined>,
): Promise<Session> {
  const signIn = async (path: "register" | "login", email: string) =>
    fetch(`${url}/authentication/${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email, password: "scale bench password 1" }),
    });
  const register = async (email: string) => {
    let response = await signIn("register", email);
    if (response.status === 409) response = await signIn("login", email);
    if (response.status !== 201 && response.status !== 200)
      throw new Error(`register ${email}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { token: string }).token;
  };
  const reader = await register("scale-reader@example.com");
  await register("scale-admin@example.com");
  const grant = Bun.spawnSync(["bun", "run", "admin", "grant", "scale-admin@example.com"], {
    cwd: projectRoot,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (grant.exitCode !== 0) throw new Error(`admin grant: ${grant.stderr.toString()}`);
  const login = await signIn("login", "scale-admin@example.com");
  if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
  const admin = ((await login.json()) as { token: string }).token;
  return { url, pid, admin, reader };
}

/** Every row, in the order they run: the documented lists and counts read from the live document. */
async function rowsOf(session: Session, seeded: Seeded): Promise<Row[]> {
  const document = (await (await fetch(`${session.url}/v3/api-docs`)).json()) as {
    paths: Record<string, Record<string, { "x-access-level"?: string; parameters?: any[] }>>;
  };
  const concrete = (path: string) =>
    path
      .replaceAll("{bookId}", String(BIG_BOOK_ID))
      .replaceAll("{id}", String(BIG_BOOK_ID))
      .replaceAll("{userUUID}", uuidOf(1));
  const callerOf = (level: string | undefined) => (level === "user" ? "reader" : "admin");
  const rows: Row[] = [];
  const key = (name: string, path: Row["path"], caller: Row["caller"], extra: Partial<Row> = {}): Row => ({
    group: "key",
    name,
    path,
    caller,
    repeats: REPEATS,
    status: 200,
    targets: {},
    ...extra,
  });
  rows.push(key("GET /book/{id}", `/book/${Math.floor(SIZE.books / 2)}`, "reader"));
  rows.push(
    key("POST /activation/by-qr-code (fresh code)", "/activation/by-qr-code", "reader", {
      method: "POST",
      body: (run) => JSON.stringify({ code: seeded.freshCodes[run] }),
      status: 201,
    }),
  );
  rows.push(key("GET /book/my-books (the reader's shelf)", "/book/my-books", "reader"));

  for (const [path, operations] of Object.entries(document.paths)) {
    const get = operations.get;
    if (!get) continue;
    const caller = callerOf(get["x-access-level"]);
    if (path.endsWith("/count")) {
      rows.push({ ...key(`GET ${path}`, concrete(path), caller), group: "count", targets: FAST });
      continue;
    }
    const sort = get.parameters?.find((p) => p.name === "sort");
    if (!sort) continue;
    const pattern: string = sort.schema?.items?.pattern ?? "";
    const fields = /^\^\(([^)]*)\)/.exec(pattern)?.[1]?.split("|") ?? [];
    // GET /user needs its search (API.md §10): "reader1" is the widest a seeded shop has (1/9 of it).
    const list = path === "/user" ? `${concrete(path)}?q=reader1&` : `${concrete(path)}?`;
    rows.push({
      ...key(`GET ${path} page 0`, `${list}page=0&size=${PAGE_SIZE}`, caller),
      group: "page0",
      targets: FAST,
    });
    for (const field of fields) {
      for (const direction of ["asc", "desc"]) {
        rows.push({
          ...key(
            `GET ${path} page 0 sort=${field},${direction}`,
            `${list}page=0&size=${PAGE_SIZE}&sort=${field},${direction}`,
            caller,
          ),
          group: "page0",
          targets: FAST,
        });
      }
    }
  }

  // The filters and look-ups beside the console (API.md §10), page 0 of each.
  for (const query of [
    "source=code",
    "source=order",
    "source=manual",
    "source=code&sort=createdAt,desc",
    "from=2026-01-01T00:00:00Z&sort=createdAt,desc",
    "source=manual&from=2020-01-01T00:00:00Z&to=2030-01-01T00:00:00Z&sort=createdAt",
    `bookId=${BIG_BOOK_ID}&source=code`,
    `userUuid=${uuidOf(1)}&source=code`,
  ]) {
    rows.push({
      ...key(`GET /activation?${query} page 0`, `/activation?${query}&page=0&size=${PAGE_SIZE}`, "admin"),
      group: "page0",
      targets: FAST,
    });
  }
  rows.push({
    ...key("GET /activation/count?source=manual", "/activation/count?source=manual", "admin"),
    group: "count",
    targets: FAST,
  });
  rows.push(key("GET /user?q=reader12345 (one user)", "/user?q=reader12345&page=0&size=20", "admin"));
  rows.push(key("GET /user/{userUUID}", `/user/${uuidOf(1)}`, "admin"));
  rows.push(
    key(
      "GET /activation-qr-code?code= (a code as typed)",
      "/activation-qr-code?code=0000-0000-0000-0000",
      "admin",
    ),
  );

  rows.push({
    ...key("GET /activation last page", lastPageOfActivations, "admin"),
    group: "lastpage",
    targets: { medianMs: 100 },
  });

  // Print runs (issue 41): a run made while others read, then a run's counts wherever they are
  // answered — its book's page, the batch itself, and the headers of its CSV and its sheet — for
  // the seeded run of 200,000 codes.
  const batch = (name: string, path: Row["path"], extra: Partial<Row> = {}): Row => ({
    ...key(name, path, "admin"),
    group: "batch",
    targets: FAST,
    ...extra,
  });
  rows.push(
    batch("POST /activation-qr-code/batch (10,000 codes, book 3)", "/activation-qr-code/batch", {
      method: "POST",
      body: () => JSON.stringify({ bookId: 3, quantity: 10_000, maxActivations: 1, label: "scale bench" }),
      status: 201,
      repeats: 1,
      targets: OFF_LOOP,
    }),
  );
  rows.push(
    batch(
      "GET /activation-qr-code/ofbook/{bookId}/batches page 0 (big book)",
      `/activation-qr-code/ofbook/${BIG_BOOK_ID}/batches?page=0&size=${PAGE_SIZE}`,
    ),
  );
  rows.push(
    batch("GET /activation-qr-code/batch/{id} (200,000 codes)", `/activation-qr-code/batch/${BIG_BATCH_ID}`),
  );
  rows.push(
    batch(
      "GET /activation-qr-code/batch/{id}/codes.csv headers (200,000 codes)",
      `/activation-qr-code/batch/${BIG_BATCH_ID}/codes.csv`,
      { headersOnly: true },
    ),
  );
  rows.push(
    batch(
      "GET /activation-qr-code/batch/{id}/sheet.pdf headers (200,000 codes)",
      `/activation-qr-code/batch/${BIG_BATCH_ID}/sheet.pdf`,
      { headersOnly: true },
    ),
  );

  // Admin work before the whole lists: the memory those leave held would hide what it takes.
  const admin = (name: string, path: Row["path"], extra: Partial<Row> = {}): Row => ({
    group: "admin",
    name,
    path,
    caller: "admin",
    repeats: 1,
    status: 200,
    targets: OFF_LOOP,
    ...extra,
  });
  rows.push(
    admin("POST /activation-qr-code/batch (10,000 codes)", "/activation-qr-code/batch", {
      method: "POST",
      body: () => JSON.stringify({ bookId: 2, quantity: 10_000, maxActivations: 1, label: "scale bench" }),
      status: 201,
    }),
  );
  // The sheet of the batch just made (found when its row runs: sheetOfNewestBatch).
  rows.push(
    admin("GET /activation-qr-code/batch/{id}/sheet.pdf (10,000 codes)", sheetOfNewestBatch, {
      targets: BOUNDED,
    }),
  );
  rows.push(
    admin(
      "GET /activation-qr-code/{id}/qr?size=2048",
      `/activation-qr-code/${seeded.someQrCodeId}/qr?size=2048`,
    ),
  );

  const whole = (name: string, path: string, caller: Row["caller"] = "admin"): Row => ({
    group: "whole",
    name,
    path,
    caller,
    repeats: 1,
    status: 200,
    targets: BOUNDED,
  });
  rows.push(whole("GET /book (whole)", "/book", "reader"));
  rows.push(
    whole(
      "GET /book/all-books-with-version-and-activation (whole, reader)",
      "/book/all-books-with-version-and-activation",
      "reader",
    ),
  );
  rows.push(
    whole(
      `GET /activation-qr-code/ofbook/{bookId}/null-activations (big book)`,
      `/activation-qr-code/ofbook/${BIG_BOOK_ID}/null-activations`,
    ),
  );
  rows.push(
    whole(
      "GET /activation-qr-code/batch/{id}/codes.csv (200,000 codes)",
      `/activation-qr-code/batch/${BIG_BATCH_ID}/codes.csv`,
    ),
  );
  rows.push(whole("GET /activation (whole)", "/activation"));
  rows.push(whole("GET /activation-qr-code (whole)", "/activation-qr-code"));
  return rows;
}

async function adminGet<T>(session: Session, path: string): Promise<T> {
  const response = await fetch(`${session.url}${path}`, {
    headers: { Authorization: `Bearer ${session.admin}` },
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The batch the batch-creation row made, for its sheet. */
async function sheetOfNewestBatch(session: Session): Promise<string> {
  const batches = await adminGet<Array<{ id: number }>>(session, "/activation-qr-code/ofbook/2/batches");
  if (!batches.length) throw new Error("book 2 has no batch: run the whole admin group");
  return `/activation-qr-code/batch/${Math.max(...batches.map((b) => b.id))}/sheet.pdf`;
}

/** The last page as the list stands now (the redemptions above added to it). */
async function lastPageOfActivations(session: Session): Promise<string> {
  const total = await adminGet<number | { count: number }>(session, "/activation/count");
  const count = typeof total === "number" ? total : total.count;
  return `/activation?page=${Math.ceil(count / PAGE_SIZE) - 1}&size=${PAGE_SIZE}`;
}

async function measureRow(session: Session, row: Row): Promise<Measured> {
  const path = typeof row.path === "string" ? row.path : await row.path(session);
  const idle = rssMiB(session.pid);
  let peak = idle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(session.pid));
  }, RSS_EVERY_MS);
  const probe = startProbe(session);
  const times: number[] = [];
  let bytes = 0;
  let failure: string | undefined;
  try {
    for (let run = 0; run < row.repeats && failure === undefined; run++) {
      const result = row.headersOnly
        ? await headers(session, row, path)
        : await curl(session, row, path, run);
      times.push(result.ms);
      bytes = result.bytes;
      failure = result.failure;
    }
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssMiB(session.pid));
  const probed = await probe.stop();
  return {
    row,
    medianMs: median(times),
    totalMs: times.reduce((a, b) => a + b, 0),
    bytes,
    rssMiB: peak - idle,
    probeP99Ms: probed.p99,
    probeMaxMs: probed.max,
    ...(failure === undefined ? {} : { failure }),
  };
}

async function curl(
  session: Session,
  row: Row,
  path: string,
  run: number,
): Promise<{ ms: number; bytes: number; failure?: string }> {
  const token = row.caller === "admin" ? session.admin : session.reader;
  const args = [
    "curl",
    "-s",
    "-o",
    "/dev/null",
    "--max-time",
    "900",
    "-w",
    "%{http_code} %{size_download} %{time_total}",
    "-H",
    `Authorization: Bearer ${token}`,
  ];
  if (row.method === "POST") {
    args.push("-X", "POST", "-H", "Content-Type: application/json", "--data-binary", row.body!(run));
  }
  args.push(`${session.url}${path}`);
  const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  const [status, size, seconds] = out.trim().split(" ");
  const ms = Number(seconds) * 1000;
  const bytes = Number(size);
  if (code !== 0) return { ms, bytes, failure: `curl exit ${code} after ${bytes} bytes` };
  if (Number(status) !== row.status) return { ms, bytes, failure: `status ${status}, not ${row.status}` };
  return { ms, bytes };
}

/** A GET timed to its response's headers; the body is cancelled (the server stops making it). */
async function headers(
  session: Session,
  row: Row,
  path: string,
): Promise<{ ms: number; bytes: number; failure?: string }> {
  const token = row.caller === "admin" ? session.admin : session.reader;
  const started = performance.now();
  try {
    const response = await fetch(`${session.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    const ms = performance.now() - started;
    await response.body?.cancel();
    if (response.status !== row.status)
      return { ms, bytes: 0, failure: `status ${response.status}, not ${row.status}` };
    return { ms, bytes: 0 };
  } catch (error) {
    return { ms: performance.now() - started, bytes: 0, failure: String(error) };
  }
}

/** Another client: GET /book/1 as a reader every 50 ms, each answer's latency kept. */
export function startProbe(session: Session): { stop(): Promise<{ p99: number; max: number }> } {
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const send = () => {
    const started = performance.now();
    const request = fetch(`${session.url}/book/1`, { headers: { Authorization: `Bearer ${session.reader}` } })
      .then(async (response) => {
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
      })
      // The server ended under the row: the row says so (measureRow), the probe just stops.
      .catch(() => {})
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  // One at once, so a request shorter than the period has a probe beside it too.
  send();
  const timer = setInterval(send, PROBE_EVERY_MS);
  return {
    async stop() {
      clearInterval(timer);
      // A probe still waiting when the request ended waited for it: it counts.
      await Promise.all(inFlight);
      const sorted = latencies.sort((a, b) => a - b);
      if (!sorted.length) return { p99: Number.NaN, max: Number.NaN };
      return {
        p99: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!,
        max: sorted.at(-1)!,
      };
    },
  };
}

export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Each target of a row with its figure: met, missed, or "" when the row has none. */
function verdictOf(m: Measured): string {
  if (m.failure !== undefined) return `FAILED: ${m.failure}`;
  const checks: string[] = [];
  const check = (label: string, figure: number, target: number | undefined) => {
    if (target === undefined) return;
    checks.push(`${label} ≤ ${target}: ${figure <= target ? "met" : "MISSED"}`);
  };
  check("median ms", m.medianMs, m.row.targets.medianMs);
  check("probe p99 ms", m.probeP99Ms, m.row.targets.probeP99Ms);
  check("RSS MiB", m.rssMiB, m.row.targets.rssMiB);
  return checks.join("; ") || "flat S1→S3 (no figure)";
}

function line(m: Measured): string {
  return `${m.row.name}: ${fmt(m.medianMs, 2)} ms, ${m.bytes} B, RSS +${fmt(m.rssMiB)} MiB, probe p99 ${fmt(m.probeP99Ms)} ms`;
}

function report(label: string, seedSeconds: number, rows: Measured[]): void {
  const header = [
    "row",
    "median ms",
    "total s",
    "bytes",
    "RSS +MiB",
    "probe p99 ms",
    "probe max ms",
    "target",
  ];
  const cells = rows.map((m) => [
    m.row.name,
    fmt(m.medianMs, 2),
    m.row.repeats === 1 ? fmt(m.totalMs / 1000, 2) : "",
    m.bytes ? m.bytes.toLocaleString("en-US") : "",
    m.row.group === "startup" ? "" : fmt(m.rssMiB),
    Number.isNaN(m.probeP99Ms) ? "" : fmt(m.probeP99Ms),
    Number.isNaN(m.probeMaxMs) ? "" : fmt(m.probeMaxMs),
    verdictOf(m),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const format = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join("  ");
  const missed = rows.filter((m) => /MISSED|FAILED/.test(verdictOf(m))).length;
  const judged = rows.filter((m) => Object.keys(m.row.targets).length).length;
  console.log(
    `\n${label}, ${SIZE.name} (seeded in ${fmt(seedSeconds)} s): ${judged - missed} of ${judged} rows meet their targets`,
  );
  console.log(format(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of cells) console.log(format(row));
}

// bench/console.ts takes its sessions and probe from here.
if (import.meta.main) await main();
