// The environment of every process a test starts that runs this project's code (the real server,
// `bun run admin`, `bun run storage`, a shell script calling them, a `bun -e` helper): complete and
// explicit, so a test run in a folder whose `.env` names live systems, or from a shell that has
// DATABASE_URL set, leaves those systems alone (README "Tests and benchmarks").
//
// Three layers, because Bun loads `.env` itself in every `bun` it starts:
// - only what programs need to run is inherited (INHERITED_VARIABLES): no DATABASE_URL, STORE_*,
//   S3_*, AWS_*, PG* … of the calling shell;
// - every variable config.ts reads is present, with the test's value or empty (read as unset), and
//   Bun never fills a variable that is present from `.env`;
// - BUN_OPTIONS=--no-env-file, which every `bun` reads, so neither the child nor a `bun` it starts
//   in turn (`bun run admin` runs `bun run src/admin-cli.ts`) loads `.env`, `.env.local`, ….
import { CONFIG_VARIABLES } from "../../src/config";

/** What a child inherits from the test process: what a program needs to find itself and run. */
export const INHERITED_VARIABLES = [
  "PATH",
  "HOME",
  "TMPDIR",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TERM",
  "NO_COLOR",
  "FORCE_COLOR",
] as const;

/** Makes every `bun` of the child's tree skip `.env` files (Bun reads BUN_OPTIONS as arguments). */
export const NO_ENV_FILE = "--no-env-file";

/**
 * Variables that no test process may hold: every one config.ts reads, and those the clients it
 * uses read by default (Bun's SQL, Bun's S3Client, mysql2) when a URL or key is not given.
 */
export const SERVICE_VARIABLES: readonly string[] = [
  ...CONFIG_VARIABLES,
  "POSTGRES_URL",
  "PGURL",
  "PG_URL",
  "TLS_DATABASE_URL",
  "TLS_POSTGRES_DATABASE_URL",
  "PGHOST",
  "PGPORT",
  "PGUSER",
  "PGUSERNAME",
  "PGPASSWORD",
  "PGDATABASE",
  "MYSQL_URL",
  "MYSQL_HOST",
  "MYSQL_PORT",
  "MYSQL_USER",
  "MYSQL_PASSWORD",
  "MYSQL_DATABASE",
  "S3_SESSION_TOKEN",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_REGION",
  "AWS_ENDPOINT",
  "AWS_BUCKET",
];

/** BUN_OPTIONS with --no-env-file added to what it held. */
export function withNoEnvFile(bunOptions: string | undefined): string {
  const options = (bunOptions ?? "").split(/\s+/).filter((option) => option !== "");
  return options.includes(NO_ENV_FILE) ? options.join(" ") : [...options, NO_ENV_FILE].join(" ");
}

/**
 * The whole environment of a child process: the inherited basics, every config variable empty,
 * then `values` (the test's own: DATA_DIR, DATABASE_URL of a test database, a test bucket, …).
 * A value of undefined leaves the variable empty.
 */
export function childEnv(values: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/bin:/bin";
  env.HOME ??= "/tmp";
  env.TZ = "UTC";
  for (const name of CONFIG_VARIABLES) env[name] = "";
  for (const [name, value] of Object.entries(values)) if (value !== undefined) env[name] = value;
  env.BUN_OPTIONS = withNoEnvFile(values.BUN_OPTIONS);
  return env;
}

/**
 * For the test process itself (test/helpers/preload.ts): drops what Bun loaded from `.env` and
 * what the shell set for the service, so an in-process app or a client built by a test cannot
 * fall back to it, and a child given `{ ...process.env }` gets none of it either.
 */
export function scrubTestProcessEnv(env: NodeJS.ProcessEnv = process.env): void {
  for (const name of SERVICE_VARIABLES) delete env[name];
  env.BUN_OPTIONS = withNoEnvFile(env.BUN_OPTIONS);
}

type SpawnOptions = { env?: Record<string, string | undefined> } | undefined;

/** The options with BUN_OPTIONS=--no-env-file added, and process.env as it is now when no env. */
function guarded<T extends SpawnOptions>(options: T): T {
  // Without `env`, Bun passes the environment the process started with, not process.env as the
  // preload left it: give the scrubbed one.
  const env = options?.env ?? process.env;
  return { ...options, env: { ...env, BUN_OPTIONS: withNoEnvFile(env.BUN_OPTIONS) } } as T;
}

/**
 * For the test process itself (test/helpers/preload.ts): every Bun.spawn and Bun.spawnSync of the
 * run, a test's own with no `env` or an `env` of its own included, passes
 * BUN_OPTIONS=--no-env-file, so no `bun` in any child's tree loads `.env`. A safety net under
 * childEnv, which processes running the project's code still get (it also empties the rest).
 */
export function guardSpawns(): void {
  const spawn = Bun.spawn as (...args: unknown[]) => unknown;
  const spawnSync = Bun.spawnSync as (...args: unknown[]) => unknown;
  const withGuard = (original: (...args: unknown[]) => unknown) => (first: unknown, second?: SpawnOptions) =>
    Array.isArray(first) ? original(first, guarded(second)) : original(guarded(first as SpawnOptions));
  Object.assign(Bun, { spawn: withGuard(spawn), spawnSync: withGuard(spawnSync) });
}
