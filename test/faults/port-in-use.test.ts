// One listener per port: a second server started on a port already in use stops at
// once with one line naming the port, instead of sharing the port (SO_REUSEPORT, which Bun turns
// on outside development) and silently taking half the first one's traffic.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, type SpawnedServer, spawnServer } from "../helpers/spawn-server";

describe("a second server on a busy port", () => {
  const dataDirs = [
    mkdtempSync(join(tmpdir(), "bookdist-port-a-")),
    mkdtempSync(join(tmpdir(), "bookdist-port-b-")),
    mkdtempSync(join(tmpdir(), "bookdist-port-c-")),
    mkdtempSync(join(tmpdir(), "bookdist-port-d-")),
  ];
  const servers: SpawnedServer[] = [];
  afterAll(async () => {
    for (const server of servers) {
      server.kill("SIGKILL");
      await server.exited;
    }
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  test("exits non-zero with one line naming the port; the first keeps answering", async () => {
    const first = await spawnServer({ dataDir: dataDirs[0]! });
    servers.push(first);
    const second = await spawnServer({ dataDir: dataDirs[1]!, port: first.port, waitHealthy: false });
    servers.push(second);
    // A second server that shares the port runs on: give it the time a start-up takes.
    const code = await Promise.race([second.exited, Bun.sleep(15_000).then(() => null)]);
    const lines = second.output().trim().split("\n");
    console.log(`second server: exit ${code}, output ${JSON.stringify(lines)}`);

    expect(code).not.toBeNull();
    expect(code).not.toBe(0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`port ${first.port} is already in use`);
    expect(lines[0]).not.toContain(" at ");
    for (let i = 0; i < 5; i++) expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect(first.process.exitCode).toBeNull();
  }, 60_000);

  test("a metrics port in use stops the second server with one line naming that port", async () => {
    const metricsPort = freePort();
    const first = await spawnServer({ dataDir: dataDirs[2]!, env: { METRICS_PORT: String(metricsPort) } });
    servers.push(first);
    const second = await spawnServer({
      dataDir: dataDirs[3]!,
      env: { METRICS_PORT: String(metricsPort) },
      waitHealthy: false,
    });
    servers.push(second);
    const code = await Promise.race([second.exited, Bun.sleep(15_000).then(() => null)]);
    const errors = second
      .output()
      .trim()
      .split("\n")
      .filter((line) => line.includes('"level":"error"'));
    expect(code).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`metrics port ${metricsPort} is already in use`);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).toBe(200);
  }, 60_000);
});
