// Another process holds SQLite's write lock (the sqlite3 shell, a backup): the server keeps
// serving — /health answers at once and says (within its check interval) the database cannot be
// written, writes answer 503 with Retry-After after a short wait instead of freezing the process,
// reads go on (WAL) — and once the lock is released everything works again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { adminWithBook } from "../helpers/admin-cli";
import { childEnv } from "../helpers/child-env";
import { healthUntil } from "../helpers/health";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";

const ADMIN = "lock-admin@example.com";
const PASSWORD = "correct horse battery staple";

let server: SpawnedServer;
let dataDir: string;
let token: string;
let bookId: number;

/** A second process that takes the write lock with BEGIN EXCLUSIVE and holds it until its stdin closes. */
async function holdExclusiveLock(path: string): Promise<Subprocess<"pipe", "pipe", "inherit">> {
  const script = `
    import { Database } from "bun:sqlite";
    const db = new Database(${JSON.stringify(path)});
    db.exec("BEGIN EXCLUSIVE");
    console.log("locked");
    for await (const _ of Bun.stdin.stream()) {}
    db.exec("ROLLBACK");
    db.close();
  `;
  const child = Bun.spawn(["bun", "-e", script], {
    env: childEnv(),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = child.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("locked");
  reader.releaseLock();
  return child;
}

async function timed(request: () => Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = performance.now();
  const response = await request();
  await response.arrayBuffer().catch(() => {});
  return { response, ms: performance.now() - started };
}

const login = () =>
  fetch(`${server.url}/authentication/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
  });
const readBook = () =>
  fetch(`${server.url}/book/${bookId}`, { headers: { Authorization: `Bearer ${token}` } });
const renameBook = (title: string) =>
  fetch(`${server.url}/book/${bookId}`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ title }),
  });

describe("SQLite locked by another process", () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-lock-"));
    server = await spawnServer({ dataDir });
    ({ token, bookId } = await adminWithBook(
      server,
      { DATA_DIR: dataDir },
      {
        email: ADMIN,
        password: PASSWORD,
        bookTitle: "Locked",
      },
    ));
  }, 60_000);

  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("health, writes and reads while locked; all well once released", async () => {
    const holder = await holdExclusiveLock(join(dataDir, "bookdist.sqlite"));
    try {
      // The checks stand for an interval (README "Health, logs and metrics"): the lock shows
      // within it, and every answer meanwhile comes at once.
      const health = await healthUntil(server.url, (answer) => answer.body.database === "unavailable");
      expect(health.longestMs).toBeLessThan(1000);
      expect(health.status).toBe(503);
      expect(health.retryAfter).not.toBeNull();
      expect(health.body).toMatchObject({ status: "unavailable", database: "unavailable" });

      // A write and a login (which writes a session) wait a little, then give up with 503.
      const [write, loggedIn, probe] = await Promise.all([
        timed(() => renameBook("Changed while locked")),
        timed(login),
        // Meanwhile the process keeps answering: the waits above do not block its event loop.
        (async () => {
          await Bun.sleep(300);
          return timed(() => fetch(`${server.url}/health`));
        })(),
      ]);
      // Writes are queued one at a time: the login's session write waits out its 2 s budget after
      // the rename has waited out its own, so it answers after two budgets (3.94 s measured on an
      // idle machine), never after more.
      for (const { response, ms } of [write, loggedIn]) {
        expect(response.status).toBe(503);
        expect(response.headers.get("retry-after")).not.toBeNull();
        expect(ms).toBeLessThan(2 * 2000 + 1000);
      }
      expect(probe.ms).toBeLessThan(1000);

      // Reads go on: WAL lets readers past a writer.
      const read = await timed(readBook);
      expect(read.response.status).toBe(200);
      expect(read.ms).toBeLessThan(1000);
    } finally {
      holder.stdin.end();
      await holder.exited;
    }

    expect((await healthUntil(server.url, (answer) => answer.status === 200)).status).toBe(200);
    expect((await login()).status).toBe(200);
    expect((await renameBook("Changed after the lock")).status).toBe(200);
  }, 60_000);

  test("a single write that meets a lock released within the retry budget succeeds", async () => {
    const holder = await holdExclusiveLock(join(dataDir, "bookdist.sqlite"));
    const write = timed(() => renameBook("Changed once the lock went"));
    // Held for 500 ms of the 2 s budget: the write waits (asynchronously) and then goes through.
    await Bun.sleep(500);
    holder.stdin.end();
    await holder.exited;
    const { response, ms } = await write;
    expect(response.status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(400);
    expect(((await (await readBook()).json()) as { title: string }).title).toBe("Changed once the lock went");
  }, 30_000);

  test("POST /activation waits out a 300 ms lock like every other write and answers 201", async () => {
    const me = await fetch(`${server.url}/authentication/me`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    const { uuid } = (await me.json()) as { uuid: string };
    const holder = await holdExclusiveLock(join(dataDir, "bookdist.sqlite"));
    // The insert once went through a prepared statement outside the write door and met the lock
    // after the short busy timeout: 503 at once.
    const created = timed(() =>
      fetch(`${server.url}/activation`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ bookId, userUuid: uuid }),
      }),
    );
    await Bun.sleep(300);
    holder.stdin.end();
    await holder.exited;
    const { response } = await created;
    expect(response.status).toBe(201);
  }, 30_000);
});
