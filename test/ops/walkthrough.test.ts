// README.md's walk-through, run as it stands (its ```sh block, extracted) with bash against a fresh
// real server, failing on any non-zero step (`set -euo pipefail`): the README cannot rot. The same
// server then shows what an operator sees of that traffic: its /metrics, checked by Prometheus' own
// `promtool check metrics` and for the values the traffic must have produced, and its access log,
// with the fields README, Health, logs and metrics names and no token, password or code in any
// line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { childEnv } from "../helpers/child-env";
import { samples } from "../helpers/prometheus";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { requireTool } from "../helpers/requires";
import { projectRoot } from "../helpers/spawn-server";

const FIXTURE_APK_BYTES = 12865; // test/fixtures/apk/tinyapp-v1v2v3.apk, uploaded as the archive and the APK

/** The shell block of the README's "## Walk-through" section. */
export function walkthroughBlock(readme: string): string {
  const section = readme.split(/^## /m).find((part) => part.startsWith("Walk-through\n"));
  if (section === undefined) throw new Error('README.md has no "## Walk-through" section');
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(section)?.[1];
  if (block === undefined) throw new Error("the walk-through has no ```sh block");
  return block;
}

const hasShellTools = requireTool(["curl"], "curl") && requireTool(["node", "npx"], "nodejs, npm");
const hasPromtool = requireTool("promtool", "prometheus");

describe.if(hasShellTools)("the README's walk-through against a fresh server", () => {
  let server: RealServer;
  let metricsUrl: string;
  let script: { exitCode: number; stdout: string; stderr: string };
  let exposition: string;
  let contentType: string | null;

  beforeAll(async () => {
    server = await startRealServer({
      // Throttles on, as in production, for the 429s below; metrics on a port the kernel picks.
      env: { THROTTLE: "on", METRICS_PORT: "0" },
    });
    const announced = server
      .output()
      .map((line) => (line.startsWith("{") ? (JSON.parse(line) as { msg?: string; url?: string }) : {}))
      .find((entry) => entry.msg === "metrics listening");
    if (!announced?.url) throw new Error("the server announced no metrics listener");
    metricsUrl = announced.url;

    const child = Bun.spawn(
      [
        "bash",
        "-euo",
        "pipefail",
        "-c",
        walkthroughBlock(readFileSync(join(projectRoot, "README.md"), "utf8")),
      ],
      {
        cwd: projectRoot,
        // The server's environment for `bun run admin grant`, as the README says; the address of
        // this server instead of Quick start's.
        // Nothing else (test/helpers/child-env.ts): not `.env`, not the shell's DATABASE_URL.
        env: childEnv({ BOOKDIST: server.url, ...server.dataEnv }),
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    script = { exitCode, stdout, stderr };

    // What an operator would look for: failed logins until the throttle answers 429, and a path
    // nobody serves (its label must not be the path).
    for (let i = 0; i < 12; i++) {
      await fetch(`${server.url}/authentication/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "nobody@example.com", password: "wrong password 123" }),
      }).then((r) => r.arrayBuffer());
    }
    await fetch(`${server.url}/made-up/${crypto.randomUUID()}`).then((r) => r.arrayBuffer());
    // Secrets in query strings: a versioned APK link's sha256, a token someone put in a URL.
    await fetch(`${server.url}/apk/1/download?sha256=${"ab".repeat(32)}`).then((r) => r.arrayBuffer());
    await fetch(`${server.url}/book/count?access_token=QUERY-SECRET-VALUE`).then((r) => r.arrayBuffer());

    const scraped = await fetch(metricsUrl);
    contentType = scraped.headers.get("content-type");
    exposition = await scraped.text();
  }, 120_000);

  afterAll(() => server?.stop());

  test("runs from top to bottom with every step succeeding", () => {
    expect(script.exitCode, `${script.stdout}\n${script.stderr}`).toBe(0);
    expect(script.stdout).toContain("downloaded the archive as uploaded");
    // The logout's proof: the old token is refused.
    expect(script.stderr).toContain("401");
  });

  test.if(hasPromtool)("its /metrics pass promtool check metrics", async () => {
    const check = Bun.spawn(["promtool", "check", "metrics"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    check.stdin.write(exposition);
    await check.stdin.end();
    const [out, err, code] = await Promise.all([
      new Response(check.stdout).text(),
      new Response(check.stderr).text(),
      check.exited,
    ]);
    expect(code, `${out}${err}`).toBe(0);
  });

  test("/metrics are served on their own port with the registry's content type, never on the public one", async () => {
    expect(contentType).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  test("the request metrics count the walk-through's requests by route template", () => {
    const requests = samples(exposition, "http_requests_total");
    const count = (method: string, route: string, status: number) =>
      requests.get(`{method="${method}",route="${route}",status="${status}"}`);
    expect(count("POST", "/authentication/register", 201)).toBe(2);
    expect(count("GET", "/book/{id}/newest-book-version", 200)).toBe(1);
    expect(count("POST", "/activation/by-qr-code", 201)).toBe(1);
    expect(count("GET", "/authentication/me", 401)).toBe(1);
    expect(count("GET", "unmatched", 404)).toBe(1);
    // Made-up paths collapse: no label holds one.
    expect([...requests.keys()].some((labels) => labels.includes("made-up"))).toBe(false);
    const durations = samples(exposition, "http_request_duration_seconds_count");
    expect(durations.get('{method="GET",route="/book/{id}/newest-book-version",status="200"}')).toBe(1);
  });

  test("the bookdist_* counters hold what the traffic did", () => {
    expect(samples(exposition, "bookdist_logins_total")).toEqual(
      new Map([
        // The walk-through's one password login and its one HTTP Basic call (`curl -u`).
        ['{result="success"}', 2],
        ['{result="failure"}', 10],
        ['{result="throttled"}', 2],
      ]),
    );
    expect(samples(exposition, "bookdist_registrations_total").get('{result="success"}')).toBe(2);
    expect(samples(exposition, "bookdist_redemptions_total").get('{result="success"}')).toBe(1);
    expect(samples(exposition, "bookdist_throttled_requests_total").get('{operation="login"}')).toBe(2);
    // The archive and the active bookapp, each the fixture APK.
    expect(samples(exposition, "bookdist_download_bytes_total").get("")).toBe(2 * FIXTURE_APK_BYTES);
    expect(samples(exposition, "bookdist_shop_grants_total").get("")).toBe(0);
    expect(samples(exposition, "bookdist_shop_revocations_total").get("")).toBe(0);
  });

  test("the database pool, event-loop lag and process metrics are there", () => {
    const expected = testDialectPoolMax();
    expect(samples(exposition, "bookdist_db_pool_max_connections").get("")).toBe(expected);
    expect(samples(exposition, "bookdist_db_list_snapshot_slots").get("")).toBeGreaterThan(0);
    expect(samples(exposition, "nodejs_eventloop_lag_seconds").get("")).toBeGreaterThanOrEqual(0);
    expect(samples(exposition, "process_resident_memory_bytes").get("")).toBeGreaterThan(0);
    expect(samples(exposition, "process_cpu_seconds_total").get("")).toBeGreaterThan(0);
  });

  test("the access log: one line per request with the fields of API.md §8", async () => {
    const requestLines = () =>
      server
        .output()
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.msg === "request");
    // One line per request the metrics counted; the pipe from the server may still hold the last.
    const counted = [...samples(exposition, "http_requests_total").values()].reduce((sum, n) => sum + n, 0);
    for (let waited = 0; requestLines().length < counted && waited < 2000; waited += 50) await Bun.sleep(50);
    const lines = requestLines();
    expect(lines.length).toBeGreaterThanOrEqual(counted);
    expect(counted).toBeGreaterThanOrEqual(22 + 12 + 1); // the walk-through's 22 calls, 12 logins, the made-up path
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(
        expect.arrayContaining(["requestId", "method", "status", "bytes", "durationMs", "client"]),
      );
      expect(line.client).toBe("127.0.0.1");
    }
    const download = lines.find((line) => line.operationId === "getNewestBookVersion");
    expect(download).toMatchObject({
      route: "/book/{id}/newest-book-version",
      status: 200,
      bytes: FIXTURE_APK_BYTES,
    });
    expect(download?.user).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(lines.filter((line) => line.operationId === "login" && line.status === 401)).toHaveLength(10);
    expect(lines.filter((line) => line.status === 429)).toHaveLength(2);
  });

  test("no line of the server's whole log holds a token, a password, a code or a signature", () => {
    const log = server.output().join("\n");
    for (const secret of [
      /eyJ[\w-]+\.[\w-]+/, // a JWT
      /Bearer /i,
      /correct horse|another long password|wrong password/,
      /"password"/i,
      // An activation code, standing alone: not four groups inside a request id's UUID
      // (`8a4b7217-0577-4281-9036-…` has them whenever three of its groups are digits only).
      /(?<![0-9A-Za-z-])[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}(?![0-9A-Za-z-])/,
      /sha256=|X-Amz-Signature|Signature=|QUERY-SECRET-VALUE/i, // query secrets, a presigned URL's signature
      /Authorization/i,
    ]) {
      expect(log, String(secret)).not.toMatch(secret);
    }
  });
});

/** SQLite: the writer and the reader; Postgres: DATABASE_POOL_MAX's default. */
function testDialectPoolMax(): number {
  return process.env.TEST_DATABASE_URL ? 10 : 2;
}
