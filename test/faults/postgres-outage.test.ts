// Postgres goes away under a running server (pg_ctl stop -m immediate, i.e. a crash): /health says
// 503, every DB-backed endpoint answers a clean 503 problem (no driver message, SQL or path), and
// once Postgres is back the same server process serves again without a restart.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { healthUntil } from "../helpers/health";
import { type PostgresInstance, requirePostgresServer, startPostgres } from "../helpers/postgres-instance";
import { expectProblem } from "../helpers/responses";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";

const ADMIN = "outage-admin@example.com";
const PASSWORD = "correct horse battery staple";
/** What a 503 must not carry: driver messages, error codes, SQL, file paths, stack frames. */
const INTERNALS =
  /postgres|ECONNREFUSED|ERR_|SELECT|INSERT|FROM "|\/tmp\/|\/work\/|node_modules|\bat .*:\d+:\d+/i;

let pg: PostgresInstance;
let server: SpawnedServer;
let dataDir: string;
let token: string;
let bookId: number;

async function call(method: string, path: string, json?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (json !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`${server.url}${path}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
  });
}

describe.if(requirePostgresServer())("Postgres outage", () => {
  beforeAll(async () => {
    pg = await startPostgres();
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-faults-"));
    server = await spawnServer({ dataDir, env: { DATABASE_URL: pg.url } });
    const registered = await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
    });
    expect(registered.status).toBe(201);
    token = ((await registered.json()) as { token: string }).token;
    await grantAdminWithCli(ADMIN, { DATA_DIR: dataDir, DATABASE_URL: pg.url });
    const book = await call("POST", "/book", { title: "Outage" });
    expect(book.status).toBe(201);
    bookId = ((await book.json()) as { id: number }).id;
  }, 60_000);

  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    await pg?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("503 while the database is down, served again once it is back, same process", async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const pid = server.process.pid;

    await pg.stop("immediate");

    // The checks stand for an interval (README "Health, logs and metrics"): the outage shows
    // within it, and every answer meanwhile comes within a second.
    const health = await healthUntil(server.url, (answer) => answer.body.database === "unavailable");
    expect(health.status).toBe(503);
    expect(health.retryAfter).not.toBeNull();
    expect(health.body).toMatchObject({ status: "unavailable", database: "unavailable" });
    expect(health.longestMs).toBeLessThan(1000);

    const requests: [string, string, unknown?][] = [
      ["GET", `/book/${bookId}`],
      ["GET", "/book"],
      ["GET", "/book/count"],
      ["GET", "/book/my-books"],
      ["GET", "/authentication/me"],
      ["PUT", `/book/${bookId}`, { title: "Changed while down" }],
      ["POST", "/book", { title: "Made while down" }],
      ["POST", "/activation/by-qr-code", { code: "7KQ4-M2XD-9RTF-0BHA" }],
    ];
    for (const [method, path, json] of requests) {
      const response = await call(method, path, json);
      const text = await response.text();
      const where = `${method} ${path}: ${response.status} ${text}`;
      expect(response.status, where).toBe(503);
      expect(response.headers.get("content-type"), where).toBe("application/problem+json; charset=UTF-8");
      expect(response.headers.get("retry-after"), where).not.toBeNull();
      const problem = JSON.parse(text);
      expect(problem.code, where).toBe("SERVICE_UNAVAILABLE");
      expect(problem.type).toBe("urn:problem:service-unavailable");
      expect(text, where).not.toMatch(INTERNALS);
    }
    // Logging in needs the store, which lives in the same database here.
    const login = await fetch(`${server.url}/authentication/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
    });
    await expectProblem(login, 503, "SERVICE_UNAVAILABLE");

    await pg.start();

    expect((await healthUntil(server.url, (answer) => answer.status === 200, 25_000)).status).toBe(200);
    // The pool reconnects: every endpoint works again, with the old token (its session survived).
    const book = await call("GET", `/book/${bookId}`);
    expect(book.status).toBe(200);
    expect(((await book.json()) as { title: string }).title).toBe("Outage");
    expect((await call("POST", "/book", { title: "After the outage" })).status).toBe(201);
    expect((await call("GET", "/book/count")).status).toBe(200);
    expect(server.process.pid).toBe(pid);
    expect(server.process.exitCode).toBeNull();

    // The log tells what happened without the driver's internals.
    const log = server.output();
    expect(log).toContain("SERVICE_UNAVAILABLE");
    expect(log).not.toMatch(/SELECT|INSERT|FROM "/);
    expect(log).not.toContain(PASSWORD);
  }, 90_000);
});
