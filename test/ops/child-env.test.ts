// test/helpers/child-env.ts: a process a test starts in a folder with `.env`, `.env.local` and
// `.env.test` naming a live database, shop and bucket reads none of them, however it is started:
// with childEnv, with an `env` of the test's own, with none, or as a `bun run` script that starts
// a `bun` of its own (as `bun run admin` does).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_VARIABLES } from "../../src/config";
import { childEnv, SERVICE_VARIABLES } from "../helpers/child-env";

const LIVE = {
  DATABASE_URL: "postgres://live@127.0.0.1:1/production",
  STORE_DRIVER: "wordpress",
  STORE_DATABASE_URL: "mysql://live@127.0.0.1:1/shop",
  STORAGE: "s3",
  S3_BUCKET: "production-bucket",
  AWS_ACCESS_KEY_ID: "live-key",
  PGPASSWORD: "live-password",
};

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bookdist-child-env-"));
  const lines = Object.entries(LIVE).map(([name, value]) => `${name}=${value}`);
  writeFileSync(join(dir, ".env"), `${lines.join("\n")}\n`);
  writeFileSync(join(dir, ".env.local"), "DATA_DIR=/var/lib/bookdist\n");
  writeFileSync(join(dir, ".env.test"), "SHOP_ORDERS=on\n");
  // What the child sees of the service's variables: the non-empty ones.
  writeFileSync(
    join(dir, "probe.ts"),
    `const names = ${JSON.stringify(SERVICE_VARIABLES)};
console.log(JSON.stringify(Object.fromEntries(names.filter((n) => process.env[n]).map((n) => [n, process.env[n]]))));`,
  );
  writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { probe: "bun run probe.ts" } }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function probe(command: string[], options: { env?: Record<string, string> }): Record<string, string> {
  const run = Bun.spawnSync(command, { cwd: dir, stdout: "pipe", stderr: "pipe", ...options });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return JSON.parse(run.stdout.toString().trim().split("\n").at(-1)!);
}

describe("a child process of a test", () => {
  test("(the control) a bun outside a test run, in that folder, is configured by its .env files", () => {
    // The shell clears BUN_OPTIONS for its bun: what an operator's `bun` does there.
    const seen = probe(["sh", "-c", "BUN_OPTIONS= exec bun probe.ts"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    expect(seen).toMatchObject({ ...LIVE, DATA_DIR: "/var/lib/bookdist" });
  });

  test("started with childEnv gets only what the test gives", () => {
    expect(probe(["bun", "probe.ts"], { env: childEnv({ DATA_DIR: "/tmp/given" }) })).toEqual({
      DATA_DIR: "/tmp/given",
    });
  });

  test("started as a bun run script that starts another bun gets nothing either", () => {
    expect(probe(["bun", "run", "probe"], { env: childEnv() })).toEqual({});
  });

  test("started with an env of the test's own, or none, gets nothing from .env", () => {
    expect(probe(["bun", "probe.ts"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } })).toEqual({});
    expect(probe(["bun", "probe.ts"], {})).toEqual({});
  });

  test("childEnv names every variable config.ts reads, so a new one is covered", () => {
    const env = childEnv({ PORT: "0" });
    for (const name of CONFIG_VARIABLES) expect(env[name]).toBe(name === "PORT" ? "0" : "");
    expect(env.BUN_OPTIONS).toBe("--no-env-file");
  });

  test("the test process holds none of the service's variables", () => {
    for (const name of SERVICE_VARIABLES) expect(process.env[name]).toBeUndefined();
  });
});
