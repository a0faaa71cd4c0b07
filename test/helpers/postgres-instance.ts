// A private PostgreSQL server for fault tests: initdb in a temp folder, its own port and socket
// folder, stopped and started at will (pg_ctl stop -m immediate is a crash). As root, the server
// runs as the `postgres` user, since PostgreSQL refuses to run as root.
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requires, requireTool } from "./requires";

export interface PostgresInstance {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  start(): Promise<void>;
  /** `immediate` kills the server without a clean shutdown, like a crash. */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  destroy(): Promise<void>;
}

const asRoot = process.getuid?.() === 0;

/** The folder with initdb and pg_ctl, or null when PostgreSQL's server binaries are not installed. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(root, version, "bin");
      if (existsSync(join(bin, "initdb")) && existsSync(join(bin, "pg_ctl"))) return bin;
    }
  }
  const initdb = Bun.which("initdb");
  return initdb ? join(initdb, "..") : null;
}

/**
 * Whether tests that start their own server run (see requires.ts): PostgreSQL's server binaries,
 * and as root runuser and chown, which hand the server its folder and run it as `postgres`.
 */
export function requirePostgresServer(): boolean {
  return [
    requires(
      postgresBinDir() !== null,
      "PostgreSQL server binaries (initdb, pg_ctl) not found (Debian package postgresql)",
    ),
    !asRoot || requireTool("runuser", "util-linux"),
    !asRoot || requireTool("chown", "coreutils"),
  ].every(Boolean);
}

function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

async function run(command: string[]): Promise<void> {
  const full = asRoot ? ["runuser", "-u", "postgres", "--", ...command] : command;
  const child = Bun.spawn(full, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`${command.slice(0, 2).join(" ")} failed (${code}): ${out}${err}`);
}

export async function startPostgres(): Promise<PostgresInstance> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL server binaries (initdb, pg_ctl) are not installed");
  const dir = mkdtempSync(join(tmpdir(), "bookdist-pg-"));
  if (asRoot) {
    // The temp folder is root's; the server user must own its data and socket folders.
    const chown = Bun.spawnSync(["chown", "-R", "postgres:postgres", dir]);
    if (chown.exitCode !== 0) throw new Error(`chown failed: ${chown.stderr.toString()}`);
  }
  chmodSync(dir, 0o700);
  const data = join(dir, "data");
  const port = freePort();
  await run([join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const instance: PostgresInstance = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      await run([join(bin, "pg_ctl"), "-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
    },
    async stop(mode = "fast") {
      await run([join(bin, "pg_ctl"), "-D", data, "-m", mode, "-w", "stop"]);
    },
    async destroy() {
      await instance.stop("immediate").catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await instance.start();
  return instance;
}
