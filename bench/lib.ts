// Helpers shared by the benchmark scripts: start the real server, measure, print.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL, type Subprocess } from "bun";
import { childEnv } from "../test/helpers/child-env";

export const projectRoot = join(import.meta.dir, "..");

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function waitForHttp(url: string, timeoutMs = 30_000, pollMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not up yet
    }
    await Bun.sleep(pollMs);
  }
  throw new Error(`${url} did not come up`);
}

export interface Server {
  url: string;
  process: Subprocess;
  /** `bun run admin <args>` on this server's data, as an operator runs it; its stdout. */
  admin(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/** The real bookdist server, as `bun run start` runs it, on its own data folder and port. */
export async function startBookdist(options: {
  port: number;
  dataDir: string;
  env?: Record<string, string>;
  /** How long start-up may take (the migrations of a large database); default 30 s. */
  startTimeoutMs?: number;
}): Promise<Server> {
  // Only what the bench gives (test/helpers/child-env.ts): never `.env` or the shell's DATABASE_URL.
  const env = childEnv({
    PORT: String(options.port),
    HOST: "127.0.0.1",
    DATA_DIR: options.dataDir,
    LOG_LEVEL: "warn",
    THROTTLE: "off",
    JWT_SECRET: "bench-secret-0123456789-bench-secret!",
    ...options.env,
  });
  const child = Bun.spawn(["bun", "src/index.ts"], {
    cwd: projectRoot,
    env,
    stdout: "inherit",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${options.port}`;
  await waitForHttp(`${url}/health`, options.startTimeoutMs);
  return {
    url,
    process: child,
    admin: (...args) => adminCli(args, env),
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

/** `bun run admin <args>` with a server's environment; throws with its output unless it exits 0. */
async function adminCli(args: string[], env: Record<string, string | undefined>): Promise<string> {
  const child = Bun.spawn(["bun", "run", "admin", ...args], {
    cwd: projectRoot,
    env: childEnv(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`bun run admin ${args.join(" ")}: exit ${code}: ${stderr.trim()}`);
  return stdout;
}

/** Peak resident memory (VmHWM) of a process, in MiB. */
export async function peakRssMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export async function currentRssMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export const fmt = (n: number, digits = 1) => n.toFixed(digits);

export async function json<T = any>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A port nothing listens on right now. */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** A fresh database on the Postgres server `serverUrl` names (BENCH_DATABASE_URL), dropped by `drop`. */
export async function createPostgresDatabase(
  serverUrl: string,
  prefix = "bookdist_bench",
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new SQL(serverUrl);
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}
