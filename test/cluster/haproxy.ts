// A real HAProxy in front of the instances: generated config, run in the foreground as a child
// process (`haproxy -f cfg -db`), asked for its view of the backends over its stats socket.
import { writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "../helpers/spawn-server";

export interface Backend {
  name: string;
  port: number;
}

export interface BackendState {
  name: string;
  /** UP, DOWN, MAINT, "UP 1/2", … as HAProxy reports it. */
  status: string;
  /** The last health check: L7OK, L7STS (a bad status), L4CON (refused), … */
  checkStatus: string;
  checkCode: string;
}

export interface HealthCheckStyle {
  /**
   * default: `option httpchk GET /health` — HAProxy's own request form, HTTP/1.0 without a Host
   * header. withHost: HTTP/1.1 with Host, for development on code that cannot answer the former.
   */
  withHost: boolean;
}

export interface Haproxy {
  url: string;
  port: number;
  process: Subprocess;
  output(): string;
  backends(): Promise<BackendState[]>;
  stop(): Promise<void>;
}

/** The config: roundrobin, X-Forwarded-For, fast health checks, connection failures retried elsewhere. */
export function haproxyConfig(options: {
  port: number;
  socket: string;
  backends: Backend[];
  check: HealthCheckStyle;
}): string {
  const check = options.check.withHost
    ? ["  option httpchk", "  http-check send meth GET uri /health ver HTTP/1.1 hdr Host localhost"]
    : ["  option httpchk GET /health"];
  return [
    "global",
    `  stats socket ${options.socket} mode 600 level admin`,
    "  maxconn 1000",
    "",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 60s",
    "  timeout server 60s",
    // A connection the server refuses (an instance stopping or killed) is retried on another.
    "  retries 3",
    "  option redispatch 1",
    "  option forwardfor",
    "",
    "frontend bookdist",
    `  bind 127.0.0.1:${options.port}`,
    "  default_backend instances",
    "",
    "backend instances",
    "  balance roundrobin",
    ...check,
    // Which instance answered: the test reads it to see requests spread over the instances.
    "  http-response set-header X-Served-By %s",
    "  default-server check inter 500ms fall 2 rise 1",
    ...options.backends.map((backend) => `  server ${backend.name} 127.0.0.1:${backend.port}`),
    "",
  ].join("\n");
}

export async function startHaproxy(options: {
  dir: string;
  backends: Backend[];
  check: HealthCheckStyle;
}): Promise<Haproxy> {
  const port = freePort();
  const socket = join(options.dir, "haproxy.sock");
  const configPath = join(options.dir, "haproxy.cfg");
  writeFileSync(
    configPath,
    haproxyConfig({ port, socket, backends: options.backends, check: options.check }),
  );
  // Debian installs it in /usr/sbin, which a non-root PATH may lack.
  const binary = Bun.which("haproxy") ?? "/usr/sbin/haproxy";
  const child = Bun.spawn([binary, "-f", configPath, "-db"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  void drain(child.stdout);
  void drain(child.stderr);
  const haproxy: Haproxy = {
    url: `http://127.0.0.1:${port}`,
    port,
    process: child,
    output: () => output,
    backends: () => showStat(socket),
    async stop() {
      child.kill("SIGTERM");
      const exited = await Promise.race([child.exited, Bun.sleep(3000).then(() => null)]);
      if (exited === null) child.kill("SIGKILL");
      await child.exited;
    },
  };
  const deadline = Date.now() + 10_000;
  while (true) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${output.trim()}`);
    try {
      await haproxy.backends();
      return haproxy;
    } catch {
      if (Date.now() > deadline) {
        await haproxy.stop();
        throw new Error(`haproxy's stats socket did not answer: ${output.trim()}`);
      }
      await Bun.sleep(100);
    }
  }
}

/** `show stat` over the stats socket: one row per server of the backend. */
async function showStat(socket: string): Promise<BackendState[]> {
  const csv = await new Promise<string>((resolve, reject) => {
    const connection = connect(socket);
    let text = "";
    connection.on("data", (data) => {
      text += data.toString();
    });
    connection.on("end", () => resolve(text));
    connection.on("error", reject);
    connection.write("show stat\n");
  });
  const [header, ...rows] = csv.split("\n").filter((line) => line.trim() !== "");
  if (!header?.startsWith("# ")) throw new Error(`unexpected answer to show stat: ${csv.slice(0, 200)}`);
  const columns = header.slice(2).split(",");
  const column = (row: string[], name: string) => row[columns.indexOf(name)] ?? "";
  return rows
    .map((line) => line.split(","))
    .filter(
      (row) =>
        column(row, "pxname") === "instances" && !["BACKEND", "FRONTEND"].includes(column(row, "svname")),
    )
    .map((row) => ({
      name: column(row, "svname"),
      status: column(row, "status"),
      checkStatus: column(row, "check_status"),
      checkCode: column(row, "check_code"),
    }));
}
