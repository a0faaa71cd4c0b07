// The real server (`bun src/index.ts`) as a child process on its own port, with its output
// captured so a test can read the log lines and kill or stop it with any signal.
import { join } from "node:path";
import type { Subprocess } from "bun";
import { childEnv } from "./child-env";
import { auditLogLine, auditLogText } from "./log-audit";
import { refuseRealServerInFastRun } from "./requires";

export const projectRoot = join(import.meta.dir, "..", "..");

export interface SpawnedServer {
  url: string;
  port: number;
  process: Subprocess<"ignore", "pipe", "pipe">;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number>;
  kill(signal: NodeJS.Signals): void;
}

export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

export async function spawnServer(options: {
  dataDir: string;
  env?: Record<string, string>;
  port?: number;
  /** Wait until /health answers 200 (default true). */
  waitHealthy?: boolean;
  /** A command the server runs under, e.g. ["unshare", "--pid", "--fork"]. */
  wrapper?: string[];
}): Promise<SpawnedServer> {
  refuseRealServerInFastRun();
  const port = options.port ?? freePort();
  const child = Bun.spawn([...(options.wrapper ?? []), "bun", "src/index.ts"], {
    cwd: projectRoot,
    // Everything it reads is given here (test/helpers/child-env.ts): nothing from `.env` or the shell.
    env: childEnv({
      PORT: String(port),
      HOST: "127.0.0.1",
      DATA_DIR: options.dataDir,
      LOG_LEVEL: "info",
      JWT_SECRET: "spawned-server-secret-0123456789-abcdef",
      ...options.env,
    }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      output += text;
      pending = auditLogText(pending + text, "spawned server");
    }
    auditLogLine(pending, "spawned server");
  };
  void drain(child.stdout);
  void drain(child.stderr);
  const url = `http://127.0.0.1:${port}`;
  const server: SpawnedServer = {
    url,
    port,
    process: child,
    output: () => output,
    exited: child.exited,
    kill: (signal) => child.kill(signal),
  };
  if (options.waitHealthy ?? true) {
    const deadline = Date.now() + 30_000;
    while (true) {
      if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${output}`);
      try {
        if ((await fetch(`${url}/health`)).status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`server did not become healthy: ${output}`);
      }
      await Bun.sleep(100);
    }
  }
  return server;
}
