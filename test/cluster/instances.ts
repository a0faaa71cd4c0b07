// The three bookdist instances: real `bun src/index.ts` processes sharing one Postgres database,
// one DATA_DIR and one JWT_SECRET, each on its own port.
import { freePort, type SpawnedServer, spawnServer } from "../helpers/spawn-server";

export interface Instance {
  /** The name HAProxy knows it by (and sends back in X-Served-By). */
  name: string;
  port: number;
  url: string;
  server: SpawnedServer;
  /** Set once the process has exited: its exit code, or the signal that ended it. */
  exit?: string;
}

export interface ClusterEnvironment {
  databaseUrl: string;
  dataDir: string;
  jwtSecret: string;
  shutdownGrace: string;
  extra: Record<string, string>;
}

export function instanceEnvironment(cluster: ClusterEnvironment): Record<string, string> {
  return {
    DATABASE_URL: cluster.databaseUrl,
    JWT_SECRET: cluster.jwtSecret,
    TRUSTED_PROXIES: "127.0.0.1",
    SHUTDOWN_GRACE: cluster.shutdownGrace,
    // Throttles stay on: each reader sends its own X-Forwarded-For, which the instances believe
    // from the balancer (TRUSTED_PROXIES), so 60 registrations are 60 client addresses.
    LOG_LEVEL: "warn",
    ...cluster.extra,
  };
}

/** Starts the process and returns at once; `waitHealthy` says when it answers. */
export async function startInstance(
  name: string,
  cluster: ClusterEnvironment,
  port = freePort(),
): Promise<Instance> {
  const server = await spawnServer({
    dataDir: cluster.dataDir,
    port,
    env: instanceEnvironment(cluster),
    waitHealthy: false,
  });
  const instance: Instance = { name, port, url: server.url, server };
  void server.exited.then((code) => {
    instance.exit = String(server.process.signalCode ?? code);
  });
  return instance;
}

/** Resolves true when /health answers 200, false when the process exits or the time runs out. */
export async function waitHealthy(instance: Instance, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (instance.server.process.exitCode !== null || instance.server.process.signalCode !== null)
      return false;
    try {
      if ((await fetch(`${instance.url}/health`)).status === 200) return true;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  return false;
}

export function alive(instance: Instance): boolean {
  return instance.server.process.exitCode === null && instance.server.process.signalCode === null;
}

/** The line that says why an instance stopped, from its own log (or the end of its output). */
export function exitReason(instance: Instance): string {
  const lines = instance.server
    .output()
    .split("\n")
    .filter((line) => line.trim() !== "");
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; message?: string; error?: string };
      if (entry.msg === "start-up failed") return `start-up failed: ${entry.message ?? entry.error ?? "?"}`;
    } catch {
      // not a log line
    }
  }
  return lines.at(-1)?.slice(0, 200) ?? "no output";
}

/** SIGKILL every instance still running, by its pid. */
export async function killAll(instances: Instance[]): Promise<void> {
  for (const instance of instances) if (alive(instance)) instance.server.kill("SIGKILL");
  await Promise.all(instances.map((instance) => instance.server.exited));
}
