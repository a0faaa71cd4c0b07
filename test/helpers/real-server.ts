// The real server as `bun run start` runs it: its own process, a temp DATA_DIR, a fresh
// database (a new Postgres database when TEST_DATABASE_URL is set) and a port it picks itself.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { childEnv } from "./child-env";
import { createTestDatabase, type TestDatabase } from "./databases";
import { auditLogLine } from "./log-audit";
import { refuseRealServerInFastRun } from "./requires";

export const projectRoot = join(import.meta.dir, "..", "..");

export interface RealServer {
  /** e.g. http://127.0.0.1:41234, no trailing slash */
  url: string;
  process: Subprocess;
  dataDir: string;
  /** What `bun run admin` needs to reach this server's data: DATA_DIR and DATABASE_URL. */
  dataEnv: Record<string, string>;
  /** Every line the server wrote to stdout and stderr so far (its JSON logs). */
  output(): string[];
  /** SIGTERM, wait for the exit, drop the database, remove the data folder. */
  stop(): Promise<void>;
}

export async function startRealServer(options: { env?: Record<string, string> } = {}): Promise<RealServer> {
  refuseRealServerInFastRun();
  const dataDir = mkdtempSync(join(tmpdir(), "bookdist-real-"));
  // SQLite: the server's default file in DATA_DIR. Postgres: a database of its own.
  const database: TestDatabase | undefined = process.env.TEST_DATABASE_URL
    ? await createTestDatabase()
    : undefined;
  const child = Bun.spawn(["bun", "src/index.ts"], {
    cwd: projectRoot,
    // Everything it reads is given here (test/helpers/child-env.ts): nothing from `.env` or the shell.
    env: childEnv({
      // Port 0: the kernel picks a free port and the server logs the URL it listens on, so two
      // test files starting servers at once cannot race for a port.
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      THROTTLE: "off",
      JWT_SECRET: "real-server-test-secret-0123456789-abcdef",
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...options.env,
    }),
    stdout: "pipe",
    stderr: "pipe",
  });

  const lines: string[] = [];
  let announce: (url: string) => void = () => {};
  const listening = new Promise<string>((resolve) => {
    announce = resolve;
  });
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      pending += decoder.decode(chunk, { stream: true });
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        auditLogLine(line, "real server");
        const url = listeningUrl(line);
        if (url) announce(url);
      }
    }
    if (pending) {
      lines.push(pending);
      auditLogLine(pending, "real server");
    }
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);

  const cleanUp = async () => {
    await drained;
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const exitedEarly = child.exited.then((code) => {
    throw new Error(`the server exited with ${code} before listening:\n${lines.join("\n")}`);
  });
  exitedEarly.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tooSlow = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the server did not listen within 30 s:\n${lines.join("\n")}`)),
      30_000,
    );
  });
  let url: string;
  try {
    url = await Promise.race([listening, exitedEarly, tooSlow]);
  } catch (error) {
    child.kill("SIGKILL");
    await child.exited;
    await cleanUp();
    throw error;
  } finally {
    clearTimeout(timer);
  }

  return {
    url,
    process: child,
    dataDir,
    dataEnv: { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) },
    output: () => [...lines],
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
      await cleanUp();
    },
  };
}

/** The URL of the server's `listening` log line, without its trailing slash. */
function listeningUrl(line: string): string | undefined {
  if (!line.startsWith("{")) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg === "listening" && entry.url ? entry.url.replace(/\/+$/, "") : undefined;
  } catch {
    return undefined;
  }
}
