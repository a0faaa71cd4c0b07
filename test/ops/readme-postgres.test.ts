// README.md's Postgres lines ("## Postgres", the ```sql block with CREATE ROLE), run as they stand
// but for the names and the password: psql makes the role and the database it owns, and the
// migrations then create every table connected as that role, as the server does at its first start.
// The role and database are this test's own and dropped after.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { openDatabase } from "../../src/db/client";
import { childEnv } from "../helpers/child-env";
import { onlyIn, requireTool } from "../helpers/requires";
import { projectRoot } from "../helpers/spawn-server";

/** The ```sql block of the README's "## Postgres" section that creates the role. */
export function postgresSetupBlock(readme: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Postgres\n"));
  if (section === undefined) throw new Error('README.md has no "## Postgres" section');
  const block = [...section.matchAll(/^```sql\n([\s\S]*?)^```$/gm)]
    .map((match) => match[1] as string)
    .find((sql) => sql.includes("CREATE ROLE"));
  if (block === undefined) throw new Error("the Postgres section has no ```sql block with CREATE ROLE");
  return block;
}

const serverUrl = process.env.TEST_DATABASE_URL;
const onPostgres = onlyIn(
  Boolean(serverUrl),
  "needs TEST_DATABASE_URL: a Postgres server to create a role on",
);
const hasPsql = onPostgres && requireTool("psql", "postgresql-client");
const readme = readFileSync(join(projectRoot, "README.md"), "utf8");

describe("the README's Postgres role and database", () => {
  test("a role that logs in with a password, and a database it owns", () => {
    const sql = postgresSetupBlock(readme);
    expect(sql).toMatch(/^CREATE ROLE (\w+) LOGIN PASSWORD '[^']+';$/m);
    const role = /^CREATE ROLE (\w+)/m.exec(sql)?.[1];
    expect(sql).toMatch(new RegExp(`^CREATE DATABASE \\w+ OWNER ${role};$`, "m"));
  });
});

describe.if(hasPsql)("the README's Postgres lines, run with psql", () => {
  const name = `bookdist_readme_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const password = `pw-${crypto.randomUUID()}`;
  let made = false;

  afterAll(async () => {
    if (!made || !serverUrl) return;
    const admin = new SQL(serverUrl);
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`DROP ROLE IF EXISTS ${name}`);
    await admin.close();
  });

  test("make a role and its database, on which the migrations run as that role", async () => {
    const sql = postgresSetupBlock(readme)
      .replace(/'[^']*'/, `'${password}'`)
      .replace(/\bbookdist\b/g, name);
    made = true;
    // psql's standard input runs each statement on its own (CREATE DATABASE refuses a transaction).
    const run = Bun.spawnSync(["psql", "-v", "ON_ERROR_STOP=1", "-X", "-q", serverUrl as string], {
      env: childEnv(),
      stdin: new TextEncoder().encode(sql),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({ exitCode: run.exitCode, stderr: run.stderr.toString() }).toEqual({ exitCode: 0, stderr: "" });

    const url = new URL(serverUrl as string);
    url.username = name;
    url.password = password;
    url.pathname = `/${name}`;
    const handle = await openDatabase(url.toString(), { migrate: true });
    await handle.close();
    const asRole = new SQL(url.toString());
    try {
      const [row] = (await asRole.unsafe(
        "SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user",
      )) as { tables: number }[];
      expect(row?.tables).toBeGreaterThan(10);
    } finally {
      await asRole.close();
    }
  }, 60_000);
});
