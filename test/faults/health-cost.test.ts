// GET /health costs nothing to ask (README "Health, logs and metrics"), against the real server:
// with STORAGE=s3 on a real Ceph, a burst of 1,000 /health reaches the bucket a handful of times
// at most, by reads, counted by a proxy between the server and the RADOS Gateway; concurrent
// callers share one check; a bucket that fails shows within the check interval, and so does its
// recovery. On SQLite, strace counts the write locks the server takes and the probe files it
// creates: a burst takes one or two, not one per request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server, Subprocess } from "bun";
import { CHECK_INTERVAL_MS } from "../../src/services/health-checks";
import { requireCeph, sharedCeph } from "../helpers/ceph";
import { healthUntil } from "../helpers/health";
import { requires, requireTool } from "../helpers/requires";
import { s3Env } from "../helpers/s3-env";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";

const BURST = 1_000;
/** Requests in flight at once during a burst: what a busy balancer pool and a few scanners make. */
const CONCURRENCY = 50;
const INTERVAL_MS = CHECK_INTERVAL_MS;

interface HealthAnswer {
  status: number;
  body: { status: string; storage: string; database: string };
}

async function health(url: string): Promise<HealthAnswer> {
  const response = await fetch(`${url}/health`);
  return { status: response.status, body: (await response.json()) as HealthAnswer["body"] };
}

/** `count` GET /health, `concurrency` at a time; every answer. */
async function burst(url: string, count: number, concurrency: number): Promise<HealthAnswer[]> {
  const answers: HealthAnswer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        answers.push(await health(url));
      }
    }),
  );
  return answers;
}

const ceph = requireCeph();

describe.if(ceph)("STORAGE=s3: /health and the bucket", () => {
  let proxy: Server<undefined>;
  let server: SpawnedServer;
  let dataDir: string;
  /** Every request that reached the proxy, as "METHOD /path?query", and when. */
  const seen: { line: string; at: number }[] = [];
  /** While set, the proxy answers as a throttling provider does instead of forwarding. */
  let failing = false;

  beforeAll(async () => {
    const gateway = (await sharedCeph()).endpoint;
    // A counting proxy: the server's S3 endpoint, forwarding to the RADOS Gateway. The Host
    // header passes unchanged, as the request's signature covers it.
    proxy = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const url = new URL(request.url);
        seen.push({ line: `${request.method} ${url.pathname}${url.search}`, at: performance.now() });
        if (failing) {
          return new Response(
            "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>",
            {
              status: 503,
              headers: { "Content-Type": "application/xml" },
            },
          );
        }
        return fetch(`${gateway}${url.pathname}${url.search}`, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: "manual",
          decompress: false,
        });
      },
    });
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-health-s3-"));
    const env = await s3Env("proxy", { S3_ENDPOINT: `http://127.0.0.1:${proxy.port}` });
    server = await spawnServer({ dataDir, env });
  }, 120_000);

  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    proxy?.stop(true);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Waits until the last check's result has aged out: the next /health starts a check. */
  async function checkAgedOut(): Promise<void> {
    const last = seen.at(-1)?.at ?? performance.now();
    await Bun.sleep(Math.max(0, last + INTERVAL_MS + 200 - performance.now()));
  }

  test("1,000 /health in a burst: a handful of bucket requests, none a write", async () => {
    // The burst begins with a check of its own, which the proxy must see (else it proves nothing).
    await checkAgedOut();
    const before = seen.length;
    const started = performance.now();
    const answers = await burst(server.url, BURST, CONCURRENCY);
    const tookMs = performance.now() - started;
    const requests = seen.slice(before).map((entry) => entry.line);
    const kinds = Object.entries(Object.groupBy(requests, (line) => line.split("?")[0]!));
    const summary = kinds.map(([kind, lines]) => `${lines?.length} × ${kind}`).join(", ");
    console.log(
      `${BURST} /health in ${Math.round(tookMs)} ms: ${requests.length} bucket requests (${summary})`,
    );
    expect(answers).toHaveLength(BURST);
    for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { storage: "ok" } });
    // One check per interval, plus one if the burst straddles an interval's end.
    expect(requests.length).toBeLessThanOrEqual(Math.ceil(tookMs / INTERVAL_MS) + 1);
    expect(requests.length).toBeLessThanOrEqual(5);
    expect(requests.length).toBeGreaterThanOrEqual(1);
    // Reads: a listing of at most one key.
    for (const request of requests) expect(request).toMatch(/^GET \S*[?&]max-keys=1\b/);
  }, 60_000);

  test("concurrent callers share one check; a failing bucket shows within the interval, and its recovery", async () => {
    // Once the last check's result has aged out, 50 callers at once start exactly one check.
    await checkAgedOut();
    const before = seen.length;
    const together = await Promise.all(Array.from({ length: CONCURRENCY }, () => health(server.url)));
    expect(seen.length - before).toBe(1);
    for (const answer of together) expect(answer.status).toBe(200);

    failing = true;
    const failingSince = seen.length;
    const down = await healthUntil(server.url, (answer) => answer.body.storage === "unavailable");
    expect(down.status).toBe(503);
    expect(down.retryAfter).not.toBeNull();
    expect(down.body).toMatchObject({ status: "unavailable", storage: "unavailable", database: "ok" });
    expect(down.longestMs).toBeLessThan(1000);
    // Polled every 200 ms, a refusing bucket is still asked once per check, not once per poll.
    expect(seen.length - failingSince).toBeLessThanOrEqual(2);

    failing = false;
    const up = await healthUntil(server.url, (answer) => answer.status === 200);
    console.log(
      `the failing bucket showed after ${Math.round(down.shownAfterMs)} ms, its recovery after ${Math.round(up.shownAfterMs)} ms`,
    );
    expect(server.output()).not.toContain("SlowDown");
  }, 60_000);
});

const strace = requireTool("strace", "strace");
/** strace attaches to a running process by ptrace: root or CAP_SYS_PTRACE, and no ptrace ban. */
const canTrace =
  strace &&
  requires(
    Bun.spawnSync(["strace", "-qq", "-e", "trace=none", "true"]).exitCode === 0,
    "strace cannot trace here (ptrace not permitted)",
  );

describe.if(canTrace)("SQLite: /health and the database's write lock", () => {
  let server: SpawnedServer;
  let dataDir: string;
  let readyAt: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-health-sqlite-"));
    server = await spawnServer({ dataDir });
    readyAt = performance.now();
  }, 60_000);

  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Runs `work` with strace attached to the server (all its threads); the trace's lines. */
  async function traced(work: () => Promise<void>): Promise<string[]> {
    const output = join(dataDir, "strace.out");
    const tracer: Subprocess<"ignore", "ignore", "pipe"> = Bun.spawn(
      ["strace", "-f", "-e", "trace=fcntl,openat", "-o", output, "-p", String(server.process.pid)],
      { stdin: "ignore", stdout: "ignore", stderr: "pipe" },
    );
    try {
      // strace says "Process N attached" on stderr for each thread; the first means it is on.
      const reader = tracer.stderr.getReader();
      const { value } = await reader.read();
      expect(new TextDecoder().decode(value)).toContain("attached");
      reader.releaseLock();
      await Bun.sleep(200);
      await work();
    } finally {
      // SIGINT makes strace detach, leaving the server running.
      tracer.kill("SIGINT");
      await tracer.exited;
    }
    const lines = readFileSync(output, "utf8").split("\n");
    rmSync(output);
    return lines;
  }

  test("1,000 /health take SQLite's write lock and write the probe file once or twice, not each", async () => {
    // The start-up's check has aged out: the burst begins with a check of its own, which the
    // trace must see (else it would prove nothing).
    await Bun.sleep(Math.max(0, readyAt + INTERVAL_MS + 200 - performance.now()));
    let answers: HealthAnswer[] = [];
    let tookMs = 0;
    const lines = await traced(async () => {
      const started = performance.now();
      answers = await burst(server.url, BURST, CONCURRENCY);
      tookMs = performance.now() - started;
    });
    expect(answers).toHaveLength(BURST);
    for (const answer of answers) expect(answer).toMatchObject({ status: 200, body: { database: "ok" } });
    // BEGIN IMMEDIATE in WAL mode takes the write lock: a write lock on byte 120 of the -shm file.
    const writeLocks = lines.filter((line) => /F_SETLK.*F_WRLCK.*l_start=120, l_len=1\b/.test(line));
    // The storage probe's small write: DATA_DIR/blobs/tmp/<instance>.health, created each check.
    const probeFiles = lines.filter((line) => /openat\(.*\.health", O_[A-Z|]*O_CREAT/.test(line));
    console.log(
      `${BURST} /health in ${Math.round(tookMs)} ms: ${writeLocks.length} SQLite write locks, ${probeFiles.length} probe files`,
    );
    const checks = Math.ceil(tookMs / INTERVAL_MS) + 1;
    expect(writeLocks.length).toBeLessThanOrEqual(checks);
    expect(probeFiles.length).toBeLessThanOrEqual(checks);
    // The trace did see the checks it counts: the burst began with one.
    expect(probeFiles.length).toBeGreaterThanOrEqual(1);
    expect(writeLocks.length).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
