// Several instances on one Postgres: they may start at the same moment on an empty or an older
// database (migrations run once, under a lock), each keeps to DATABASE_POOL_MAX connections,
// and a server out of connections answers 503 with Retry-After, not 500.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { migratePostgres } from "../../src/db/migration-lock";
import { type PostgresInstance, requirePostgresServer, startPostgres } from "../helpers/postgres-instance";
import { projectRoot, type SpawnedServer, spawnServer } from "../helpers/spawn-server";

let pg: PostgresInstance;
let admin: SQL;
const servers: SpawnedServer[] = [];
const dirs: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function createDatabase(name: string, owner = "postgres"): Promise<string> {
  await admin.unsafe(`CREATE DATABASE ${name} OWNER ${owner}`);
  const url = new URL(pg.url);
  url.pathname = `/${name}`;
  url.username = owner;
  return url.toString();
}

async function spawnTracked(env: Record<string, string>, waitHealthy = true): Promise<SpawnedServer> {
  const server = await spawnServer({ dataDir: tempDir("bookdist-pgstart-"), env, waitHealthy });
  servers.push(server);
  return server;
}

/** Starts three servers at the same moment; all must come up healthy. */
async function startThreeAtOnce(url: string): Promise<void> {
  const started = await Promise.allSettled([0, 1, 2].map(() => spawnTracked({ DATABASE_URL: url })));
  const failures = started.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []));
  expect(failures).toEqual([]);
}

const journal = JSON.parse(readFileSync(join(projectRoot, "drizzle/pg/meta/_journal.json"), "utf8")) as {
  entries: { tag: string }[];
};

async function appliedMigrationCount(url: string): Promise<{ rows: number; distinct: number }> {
  const db = new SQL(url);
  try {
    const [row] = await db`SELECT count(*)::int AS rows, count(DISTINCT hash)::int AS distinct
                           FROM drizzle.__drizzle_migrations`;
    return row as { rows: number; distinct: number };
  } finally {
    await db.close();
  }
}

async function stopAll(): Promise<void> {
  for (const server of servers.splice(0)) {
    server.kill("SIGKILL");
    await server.exited;
  }
}

describe.if(requirePostgresServer())("Postgres: start-up and connections", () => {
  beforeAll(async () => {
    pg = await startPostgres();
    admin = new SQL(pg.url);
  }, 60_000);

  afterAll(async () => {
    await stopAll();
    await admin?.close();
    await pg?.destroy();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("three instances started at once on an empty database all come up; each migration runs once", async () => {
    const url = await createDatabase("start_empty");
    await startThreeAtOnce(url);
    expect(await appliedMigrationCount(url)).toEqual({
      rows: journal.entries.length,
      distinct: journal.entries.length,
    });
    await stopAll();
  }, 90_000);

  test("three instances started at once on an older schema apply the pending migrations once", async () => {
    const url = await createDatabase("start_older");
    // The schema as the release before the last two migrations left it (one adds a column,
    // one changes data: neither may run twice).
    const older = tempDir("bookdist-older-migrations-");
    cpSync(join(projectRoot, "drizzle/pg"), older, { recursive: true });
    const olderJournal = { ...journal, entries: journal.entries.slice(0, -2) };
    writeFileSync(join(older, "meta/_journal.json"), JSON.stringify(olderJournal));
    await migratePostgres(url, older);
    expect((await appliedMigrationCount(url)).rows).toBe(journal.entries.length - 2);

    await startThreeAtOnce(url);
    expect(await appliedMigrationCount(url)).toEqual({
      rows: journal.entries.length,
      distinct: journal.entries.length,
    });
    await stopAll();
  }, 90_000);

  test("DATABASE_POOL_MAX bounds the connections of an instance", async () => {
    const url = await createDatabase("pool_max");
    const server = await spawnTracked({ DATABASE_URL: url, DATABASE_POOL_MAX: "3" });
    // Many requests at once, each needing a connection: the pool opens as many as it may.
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => fetch(`${server.url}/apk/active`).then((response) => response.status)),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
    const [row] = await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'pool_max'`;
    expect(row.n).toBeGreaterThanOrEqual(1);
    expect(row.n).toBeLessThanOrEqual(3);
    await stopAll();
  }, 60_000);

  test("no connection to be had (role connection limit) → 503 with Retry-After, not 500", async () => {
    await admin.unsafe("CREATE ROLE limited LOGIN");
    const url = await createDatabase("conn_limit", "limited");
    const server = await spawnTracked({ DATABASE_URL: url });
    expect((await fetch(`${server.url}/apk/active`)).status).toBe(200);

    // From now on the role gets no new connection ("too many connections for role", SQLSTATE
    // 53300), and the ones the server holds are ended.
    await admin.unsafe("ALTER ROLE limited CONNECTION LIMIT 0");
    // pg_terminate_backend only signals, and a connection the server was opening as the limit
    // changed can still log in: end them until none is left (on a loaded machine that can take
    // more than one round).
    for (let waited = 0; waited < 10_000; waited += 50) {
      const ended =
        await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'limited'`;
      if (ended.length === 0) break;
      await Bun.sleep(50);
    }
    // The first requests may still meet the ended connections (57P01, connection closed);
    // after them every request must open a new connection and be refused it.
    await Promise.all(Array.from({ length: 5 }, () => fetch(`${server.url}/apk/active`)));
    await Bun.sleep(200);

    const responses = await Promise.all(Array.from({ length: 5 }, () => fetch(`${server.url}/apk/active`)));
    for (const response of responses) {
      const text = await response.text();
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).not.toBeNull();
      expect(JSON.parse(text)).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
      expect(text).not.toMatch(/postgres|too many|53300|limited/i);
    }

    await admin.unsafe("ALTER ROLE limited CONNECTION LIMIT -1");
    expect((await fetch(`${server.url}/apk/active`)).status).toBe(200);
    await stopAll();
  }, 60_000);
});
