// A test run in a folder whose `.env` (and shell) names live systems leaves them untouched (README
// "Tests and benchmarks"). Sentinels stand in for the live systems: a migrated Postgres database, a
// WordPress + WooCommerce database on MariaDB, a DATA_DIR and a bucket endpoint that counts every
// request. A copy of the project with a `.env` naming them runs, with the same variables in its
// shell, tests that start real servers and `bun run admin grant` (the README's walk-through in
// bash; an admin made with the documented test password, as in the incident) and an in-process
// app. Afterwards every sentinel is as it was.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import type { RowDataPacket } from "mysql2/promise";
import { openDatabase } from "../../src/db/client";
import { onlyIn } from "../helpers/requires";
import { projectRoot } from "../helpers/spawn-server";
import { loadWooCommerceSchema } from "../helpers/woocommerce";
import { createWordPressDatabase, storeServerUrl, type WordPressDatabase } from "../helpers/wordpress";

const postgresServerUrl = process.env.TEST_DATABASE_URL;

/** Test files that start what a test run starts: real servers, the admin CLI, an in-process app. */
const SUBSET = [
  "test/ops/walkthrough.test.ts",
  "test/faults/range-header.test.ts",
  "test/routes/hal-writes.test.ts",
];

/** What the copy needs to run them; node_modules is linked, not copied. */
const PROJECT_FILES = ["src", "test", "drizzle", "package.json", "bunfig.toml", "tsconfig.json", "README.md"];

/** Every table of the database with its row count and a digest of its rows. */
async function postgresSnapshot(sql: SQL): Promise<Record<string, string>> {
  const tables = (await sql`
    SELECT table_schema, table_name FROM information_schema.tables
    WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`) as {
    table_schema: string;
    table_name: string;
  }[];
  const snapshot: Record<string, string> = {};
  for (const { table_schema, table_name } of tables) {
    const name = `"${table_schema}"."${table_name}"`;
    const [row] = (await sql.unsafe(
      `SELECT count(*)::text AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS digest FROM ${name} t`,
    )) as { n: string; digest: string }[];
    snapshot[name] = `${row!.n} rows, ${row!.digest}`;
  }
  return snapshot;
}

/** Every table of the shop's database with MariaDB's checksum of its rows. */
async function mariadbSnapshot(wp: WordPressDatabase): Promise<Record<string, string>> {
  const [tables] = await wp.admin.query<RowDataPacket[]>("SHOW TABLES");
  const names = tables.map((row) => String(Object.values(row)[0]));
  const [sums] = await wp.admin.query<RowDataPacket[]>(
    `CHECKSUM TABLE ${names.map((name) => `\`${name}\``).join(", ")} EXTENDED`,
  );
  return Object.fromEntries(sums.map((row) => [String(row.Table), String(row.Checksum)]));
}

const filesIn = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();

describe.if(
  onlyIn(
    postgresServerUrl !== undefined && storeServerUrl !== undefined,
    "the .env isolation test needs TEST_DATABASE_URL and TEST_STORE_DATABASE_URL (its sentinels)",
  ),
)("a test run in a folder whose .env names live systems", () => {
  const sentinelName = `bookdist_sentinel_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  let admin: SQL;
  let sentinelPg: SQL;
  let wp: WordPressDatabase;
  let sentinelDataDir: string;
  let copy: string;
  let bucketRequests: string[];
  let bucket: ReturnType<typeof Bun.serve>;
  let before: { pg: Record<string, string>; shop: Record<string, string> };
  let run: { exitCode: number; output: string };

  beforeAll(async () => {
    // The "live" Postgres database: migrated as a deployment's is.
    admin = new SQL(postgresServerUrl!);
    await admin.unsafe(`CREATE DATABASE ${sentinelName}`);
    const url = new URL(postgresServerUrl!);
    url.pathname = `/${sentinelName}`;
    const migrated = await openDatabase(url.toString(), { migrate: true });
    await migrated.close();
    sentinelPg = new SQL(url.toString());
    // The "live" shop: WordPress's users and WooCommerce's tables.
    wp = await createWordPressDatabase(storeServerUrl!);
    await loadWooCommerceSchema(wp.admin);
    sentinelDataDir = mkdtempSync(join(tmpdir(), "bookdist-sentinel-data-"));
    // The "live" bucket: any request at all is a touch.
    bucketRequests = [];
    bucket = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        bucketRequests.push(`${request.method} ${new URL(request.url).pathname}`);
        return new Response(null, { status: 403 });
      },
    });
    before = { pg: await postgresSnapshot(sentinelPg), shop: await mariadbSnapshot(wp) };

    const live: Record<string, string> = {
      DATA_DIR: sentinelDataDir,
      DATABASE_URL: url.toString(),
      STORE_DRIVER: "wordpress",
      STORE_DATABASE_URL: wp.url,
      SHOP_ORDERS: "on",
      SHOP_WEBHOOK_SECRET: "sentinel-webhook-secret",
      STORAGE: "s3",
      S3_BUCKET: "sentinel-bucket",
      S3_ENDPOINT: `http://127.0.0.1:${bucket.port}`,
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY_ID: "sentinel-access-key",
      S3_SECRET_ACCESS_KEY: "sentinel-secret-key",
      JWT_SECRET: "sentinel-jwt-secret-0123456789-abcdefghij",
    };
    copy = mkdtempSync(join(tmpdir(), "bookdist-env-copy-"));
    for (const name of PROJECT_FILES) cpSync(join(projectRoot, name), join(copy, name), { recursive: true });
    // Not this test itself: it would start its own copy.
    rmSync(join(copy, "test", "ops", "env-isolation.test.ts"));
    symlinkSync(join(projectRoot, "node_modules"), join(copy, "node_modules"));
    const dotenv = Object.entries(live)
      .map(([name, value]) => `${name}=${value}`)
      .join("\n");
    writeFileSync(join(copy, ".env"), `${dotenv}\n`);
    mkdirSync(join(copy, "data"));

    // `bun test` as a developer may type it there, with the same variables exported in the shell:
    // unlike `bun run test` (package.json: --no-env-file), it loads the `.env` into the test
    // process too, the harder case. SQLite for the suite's own databases (no TEST_DATABASE_URL),
    // so nothing the tests give names a Postgres database and a leak would show.
    const child = Bun.spawn(["bun", "test", "--timeout", "30000", ...SUBSET], {
      cwd: copy,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        TMPDIR: process.env.TMPDIR ?? tmpdir(),
        ...live,
      },
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 100_000);
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    clearTimeout(timer);
    run = { exitCode, output: `${stdout}\n${stderr}` };
  }, 150_000);

  afterAll(async () => {
    bucket?.stop(true);
    await sentinelPg?.close();
    await admin?.unsafe(`DROP DATABASE IF EXISTS ${sentinelName} WITH (FORCE)`);
    await admin?.close();
    await wp?.drop();
    if (sentinelDataDir) rmSync(sentinelDataDir, { recursive: true, force: true });
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  test("the tests ran and passed", () => {
    expect(run.exitCode, run.output).toBe(0);
    expect(run.output).toMatch(/\n\s*[1-9]\d* pass\n/);
    expect(run.output).toMatch(/\n\s*0 fail\n/);
  });

  test("the Postgres database .env names is as it was", async () => {
    expect(await postgresSnapshot(sentinelPg)).toEqual(before.pg);
  });

  test("the shop's database .env names is as it was", async () => {
    expect(await mariadbSnapshot(wp)).toEqual(before.shop);
  });

  test("the bucket .env names got no request", () => {
    expect(bucketRequests).toEqual([]);
  });

  test("the DATA_DIR .env names, and the copy's ./data, hold no file", () => {
    expect(filesIn(sentinelDataDir)).toEqual([]);
    expect(filesIn(join(copy, "data"))).toEqual([]);
  });
});
