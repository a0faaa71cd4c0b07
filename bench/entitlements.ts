// `bun bench/entitlements.ts`: GET /authentication/entitlements (README "Offline entitlements")
// for a reader holding 5,000 books, each with two versions (the newer one archived), on the real
// server, on SQLite and on Postgres (BENCH_DATABASE_URL, default the local server; BENCH_NO_PG=1
// skips it). Baselines from the same run and server: page 0 of GET /book/my-books (20 books) and
// the whole shelf (GET /book/my-books unpaged, 5,000 books streamed). Sequential requests over one
// keep-alive connection: median and p95 of BENCH_ROUNDS (default 50) each, against the target
// (≤ 50 ms), and the token's size. Postgres is ANALYZEd after the bulk seeding.
import { SQL } from "bun";
import type { Database } from "#db";
import { openDatabase } from "../src/db/client";
import { withTransaction } from "../src/db/transaction";
import {
  createPostgresDatabase,
  fmt,
  freePort,
  json,
  median,
  type Server,
  startBookdist,
  tempDir,
} from "./lib";

const BOOKS = Number(process.env.BENCH_BOOKS ?? 5000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 50);
const TARGET_MS = 50;
const PASSWORD = "bench reader password 0123";

/** Books, versions (v1 without archive, v2 with), and the reader's activations, 500 a statement. */
async function seed(db: Database, userUuid: string): Promise<void> {
  for (let from = 0; from < BOOKS; from += 500)
    await withTransaction(db, (tx) => seedSlice(tx, userUuid, from));
}

async function seedSlice(db: Database, userUuid: string, from: number): Promise<void> {
  const t = db.tables;
  const now = new Date();
  {
    const n = Math.min(500, BOOKS - from);
    const books = await db.orm
      .insert(t.book)
      .values(
        Array.from({ length: n }, (_, i) => ({
          title: `Bench book ${from + i}`,
          author: "Bench",
          createdAt: now,
          updatedAt: now,
        })),
      )
      .returning({ id: t.book.id });
    const sha = (id: number) => new Bun.CryptoHasher("sha256").update(`bench-${id}`).digest("hex");
    await db.orm
      .insert(t.blob)
      .values(books.map(({ id }) => ({ sha256: sha(id), size: 1000, createdAt: now })));
    await db.orm.insert(t.bookVersion).values(
      books.flatMap(({ id }) => [
        { bookId: id, versionCode: 1, versionName: "1", createdAt: now, updatedAt: now },
        {
          bookId: id,
          versionCode: 2,
          versionName: "2",
          archiveSha256: sha(id),
          archiveSize: 1000,
          archiveFilename: "b.zip",
          archiveFormat: "zip" as const,
          archiveUploadedAt: now,
          createdAt: now,
          updatedAt: now,
        },
      ]),
    );
    await db.orm
      .insert(t.activation)
      .values(books.map(({ id }) => ({ bookId: id, userUuid, createdAt: now, updatedAt: now })));
  }
}

async function timed(url: string, token: string, rounds: number): Promise<{ ms: number[]; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < rounds + 5; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    const body = await response.arrayBuffer();
    const elapsed = performance.now() - started;
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    bytes = body.byteLength;
    if (i >= 5) ms.push(elapsed); // the first five warm the caches and prepared statements
  }
  return { ms, bytes };
}

const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * 0.95) - 1]!;

async function run(label: string, env: Record<string, string>, databaseUrl: string): Promise<string[]> {
  const dataDir = tempDir("bookdist-bench-entitlements-");
  const server: Server = await startBookdist({ port: freePort(), dataDir, env });
  try {
    const session = await json<{ token: string; user: { uuid: string } }>(
      await fetch(`${server.url}/authentication/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "bench-reader@example.com", password: PASSWORD }),
      }),
    );
    const seeding = performance.now();
    const database = await openDatabase(databaseUrl || `sqlite:${dataDir}/bookdist.sqlite`, {
      migrate: true,
    });
    try {
      await seed(database.db, session.user.uuid);
      // As autovacuum would within a minute of a bulk load (the scale bench does the same).
      if (databaseUrl.startsWith("postgres")) await new SQL(databaseUrl).unsafe("ANALYZE");
    } finally {
      await database.close();
    }
    console.log(`${label}: seeded ${BOOKS} books in ${fmt((performance.now() - seeding) / 1000)} s`);
    const token = await json<{ token: string }>(
      await fetch(`${server.url}/authentication/entitlements`, {
        headers: { Authorization: `Bearer ${session.token}` },
      }),
    );
    const claims = JSON.parse(Buffer.from(token.token.split(".")[1]!, "base64url").toString()) as {
      books: unknown[];
    };
    if (claims.books.length !== BOOKS) throw new Error(`the token lists ${claims.books.length} books`);
    const rows: string[] = [];
    for (const [name, path] of [
      ["GET /authentication/entitlements", "/authentication/entitlements"],
      ["GET /book/my-books?page=0&size=20 (baseline)", "/book/my-books?page=0&size=20"],
      ["GET /book/my-books, whole shelf (baseline)", "/book/my-books"],
    ] as const) {
      const { ms, bytes } = await timed(`${server.url}${path}`, session.token, ROUNDS);
      const target =
        path === "/authentication/entitlements" ? (median(ms) <= TARGET_MS ? "met" : "MISSED") : "";
      rows.push(
        `| ${label} | ${name} | ${fmt(median(ms))} | ${fmt(p95(ms))} | ${fmt(bytes / 1024, 0)} KiB | ${target} |`,
      );
    }
    return rows;
  } finally {
    await server.stop();
  }
}

const rows = [
  `| database | request | median ms | p95 ms | body | ≤ ${TARGET_MS} ms |`,
  "|---|---|---|---|---|---|",
];
rows.push(...(await run("SQLite", {}, "")));
if (process.env.BENCH_NO_PG !== "1") {
  const pg = await createPostgresDatabase(
    process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  );
  try {
    rows.push(...(await run("Postgres", { DATABASE_URL: pg.url }, pg.url)));
  } finally {
    if (process.env.BENCH_KEEP_PG) console.log(`kept ${pg.url}`);
    else await pg.drop();
  }
}
console.log(`\n${BOOKS} books held, ${ROUNDS} sequential requests each\n`);
console.log(rows.join("\n"));
