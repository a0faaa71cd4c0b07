// The OPDS catalog at a publisher's size (README, Reading apps; issue 37): page 0 of My books, of
// Recently updated and of a search, in both formats, for a reader who holds 5,000 books, next to
// the baseline `GET /book/my-books?page=0&size=50` (the same page of the same shelf through the
// JSON API) measured in the same run, on SQLite and (with BENCH_DATABASE_URL) on Postgres.
//
// Run: bun bench/opds.ts            (S2: 10,000 books; about 2 minutes on SQLite)
//      bun bench/opds.ts --s3       (S3: 100,000 books)
//      BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/opds.ts   (adds Postgres)
//
// The seed is the scale bench's (scale-seed.ts). The bench's reader registers through the API and is
// given books 1…5,000 straight in the database (activations one second apart); every fifth of them
// gets a newest version changed within the last 90 days, so Recently updated holds 1,000. Each
// request is sent by curl with the reader's Bearer token (the shelf's own cost, not a password
// hash); medians of REPEATS runs, the requests of a round interleaved.
import { Database as Sqlite } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { isPostgresUrl, sqlitePathFromUrl } from "../src/db/client";
import { childEnv } from "../test/helpers/child-env";
import { createPostgresDatabase, fmt, median, projectRoot, tempDir, waitForHttp } from "./lib";
import { type ScaleSize, SIZES, seedScale } from "./scale-seed";

const SIZE: ScaleSize = process.argv.includes("--s3") ? SIZES.S3 : SIZES.S2;
const PORT = 18293;
const HELD = 5_000;
const REPEATS = 21;
const TARGET_MS = 20;

const ROWS: { name: string; path: string; baseline?: true }[] = [
  {
    name: "baseline GET /book/my-books?page=0&size=50",
    path: "/book/my-books?page=0&size=50",
    baseline: true,
  },
  { name: "My books, OPDS 1.2 (/opds/shelf)", path: "/opds/shelf" },
  { name: "My books, OPDS 2.0 (/opds/v2/shelf)", path: "/opds/v2/shelf" },
  { name: "Recently updated, OPDS 1.2", path: "/opds/recent" },
  { name: "Recently updated, OPDS 2.0", path: "/opds/v2/recent" },
  // 'Author 7' also matches 'Author 70'…'Author 79': 11 authors in 97, 562 of the reader's books.
  { name: "search q=Author 7, OPDS 1.2", path: "/opds/search?q=Author%207" },
  { name: "search q=Author 7, OPDS 2.0", path: "/opds/v2/search?q=Author%207" },
  // A title that matches nothing: the whole shelf is read and none is kept.
  { name: "search q=nothing, OPDS 2.0", path: "/opds/v2/search?q=no%20such%20book" },
];

interface Measured {
  name: string;
  medianMs: number;
  bytes: number;
  baseline?: true;
}

async function main(): Promise<void> {
  if (Bun.which("curl") === null) throw new Error("curl is missing: apt-get install -y curl");
  const tables: { label: string; rows: Measured[] }[] = [];
  const work = tempDir("bookdist-bench-opds-");
  try {
    const sqlitePath = join(work, "bookdist.sqlite");
    tables.push({
      label: "SQLite",
      rows: await onDatabase("SQLite", `sqlite:${sqlitePath}`, work, "data-sqlite"),
    });
    rmSync(sqlitePath, { force: true });
    const postgresUrl = process.env.BENCH_DATABASE_URL;
    if (postgresUrl) {
      const database = await createPostgresDatabase(postgresUrl, "bookdist_opds");
      try {
        tables.push({ label: "Postgres", rows: await onDatabase("Postgres", database.url, work, "data-pg") });
      } finally {
        await database.drop();
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const { label, rows } of tables) report(label, rows);
}

async function onDatabase(
  label: string,
  databaseUrl: string,
  work: string,
  dataDir: string,
): Promise<Measured[]> {
  console.log(`${label}: seeding ${SIZE.name}…`);
  const seeded = await seedScale(databaseUrl, SIZE);
  console.log(`${label}: seeded in ${fmt(seeded.seconds)} s`);
  const env = childEnv({
    PORT: String(PORT),
    HOST: "127.0.0.1",
    DATA_DIR: join(work, dataDir),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: "warn",
    THROTTLE: "off",
    JWT_SECRET: "opds-bench-secret-0123456789-opds-bench-secret",
  });
  const server: Subprocess = Bun.spawn(["bun", "src/index.ts"], {
    cwd: projectRoot,
    env,
    stdout: "inherit",
    stderr: "inherit",
  });
  try {
    const url = `http://127.0.0.1:${PORT}`;
    await waitForHttp(`${url}/health`, 600_000, 10);
    const registered = await fetch(`${url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "opds-reader@example.com", password: "opds bench password 1" }),
    });
    if (registered.status !== 201)
      throw new Error(`register: ${registered.status} ${await registered.text()}`);
    const session = (await registered.json()) as { token: string; user: { uuid: string } };
    await giveShelf(databaseUrl, session.user.uuid);
    // Every path answers, and with what the bench says it holds.
    const shelf = (await (await get(url, session.token, "/opds/v2/shelf")).json()) as {
      metadata: { numberOfItems: number };
    };
    const recent = (await (await get(url, session.token, "/opds/v2/recent")).json()) as {
      metadata: { numberOfItems: number };
    };
    console.log(
      `${label}: the reader holds ${shelf.metadata.numberOfItems}, ${recent.metadata.numberOfItems} recently updated`,
    );
    const samples = new Map<string, { ms: number[]; bytes: number }>(
      ROWS.map((row) => [row.name, { ms: [], bytes: 0 }]),
    );
    // One warm-up round, then REPEATS rounds with the rows interleaved.
    for (let round = -1; round < REPEATS; round++) {
      for (const row of ROWS) {
        const { ms, bytes, status } = await curl(url, session.token, row.path);
        if (status !== 200) throw new Error(`${row.path}: status ${status}`);
        if (round < 0) continue;
        const sample = samples.get(row.name)!;
        sample.ms.push(ms);
        sample.bytes = bytes;
      }
    }
    return ROWS.map((row) => {
      const sample = samples.get(row.name)!;
      return {
        name: row.name,
        medianMs: median(sample.ms),
        bytes: sample.bytes,
        ...(row.baseline ? { baseline: true as const } : {}),
      };
    });
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
}

/** Books 1…HELD for the reader; every fifth one's newest version (code 3) changed lately. */
async function giveShelf(databaseUrl: string, userUuid: string): Promise<void> {
  const base = Date.UTC(2025, 6, 1);
  const recentFrom = Date.now() - 10 * 24 * 60 * 60 * 1000;
  if (isPostgresUrl(databaseUrl)) {
    const sql = new SQL(databaseUrl, { max: 1 });
    try {
      await sql.unsafe(
        `INSERT INTO activation (book_id, user_uuid, qr_code_id, created_at, updated_at)
         SELECT i, $1, NULL, to_timestamp((${base} + i * 1000)::double precision / 1000),
                to_timestamp((${base} + i * 1000)::double precision / 1000)
         FROM generate_series(1, ${HELD}) AS s(i)`,
        [userUuid],
      );
      await sql.unsafe(
        `UPDATE book_version SET updated_at = to_timestamp((${recentFrom} + book_id * 1000)::double precision / 1000)
         WHERE version_code = 3 AND book_id <= ${HELD} AND book_id % 5 = 0`,
      );
      await sql.unsafe("ANALYZE activation");
    } finally {
      await sql.close();
    }
    return;
  }
  const db = new Sqlite(sqlitePathFromUrl(databaseUrl));
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.prepare(
      `INSERT INTO activation (book_id, user_uuid, qr_code_id, created_at, updated_at)
       WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${HELD})
       SELECT i, ?1, NULL, ${base} + i * 1000, ${base} + i * 1000 FROM s`,
    ).run(userUuid);
    db.exec(
      `UPDATE book_version SET updated_at = ${recentFrom} + book_id * 1000
       WHERE version_code = 3 AND book_id <= ${HELD} AND book_id % 5 = 0`,
    );
  } finally {
    db.close();
  }
}

function get(url: string, token: string, path: string): Promise<Response> {
  return fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
}

async function curl(
  url: string,
  token: string,
  path: string,
): Promise<{ ms: number; bytes: number; status: number }> {
  const child = Bun.spawn(
    [
      "curl",
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_code} %{size_download} %{time_total}",
      "-H",
      `Authorization: Bearer ${token}`,
      `${url}${path}`,
    ],
    { stdout: "pipe", stderr: "pipe" },
  );
  const out = await new Response(child.stdout).text();
  await child.exited;
  const [status, size, seconds] = out.trim().split(" ");
  return { ms: Number(seconds) * 1000, bytes: Number(size), status: Number(status) };
}

function report(label: string, rows: Measured[]): void {
  const baseline = rows.find((row) => row.baseline)!;
  console.log(
    `\n${label}, ${SIZE.name}, a reader with ${HELD} books (median of ${REPEATS}, curl time_total):`,
  );
  console.log("| request | median ms | bytes | × baseline | target ≤ 20 ms |");
  console.log("|---|---:|---:|---:|---|");
  for (const row of rows) {
    const ratio = row.medianMs / baseline.medianMs;
    const verdict = row.baseline ? "—" : row.medianMs <= TARGET_MS ? "met" : "MISSED";
    console.log(`| ${row.name} | ${fmt(row.medianMs, 2)} | ${row.bytes} | ${fmt(ratio, 2)} | ${verdict} |`);
  }
}

await main();
