// The real server as an operator runs it: `bun run admin` beside it on the same DATA_DIR while it
// serves (SQLite in WAL mode here; Postgres with TEST_DATABASE_URL), and what the server leaves
// on disk readable by its own user only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import QRCode from "qrcode";
import { runAdminCli } from "../helpers/admin-cli";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";

const PASSWORD = "correct horse battery staple";
const ADMIN = "operator-admin@example.com";

let root: string;
let dataDir: string;
let database: TestDatabase | undefined;
let server: SpawnedServer;
let dataEnv: Record<string, string>;

const post = (path: string, json: unknown, token?: string) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(json),
  });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "bookdist-operator-"));
  dataDir = join(root, "data");
  // As an older version left it: world-readable.
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  database = process.env.TEST_DATABASE_URL ? await createTestDatabase() : undefined;
  dataEnv = { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) };
  // No JWT_SECRET: the server generates its own into DATA_DIR.
  server = await spawnServer({ dataDir, env: { ...dataEnv, JWT_SECRET: "" } });
}, 60_000);

afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
  await database?.drop();
  rmSync(root, { recursive: true, force: true });
});

describe("bun run admin beside a running server", () => {
  let token: string;

  test("a registered address is no admin until an operator grants it", async () => {
    const registered = await post("/authentication/register", { email: ADMIN, password: PASSWORD });
    expect(registered.status).toBe(201);
    token = ((await registered.json()) as { token: string }).token;
    expect((await post("/book", { title: "Not yet" }, token)).status).toBe(403);

    const granted = await runAdminCli(["grant", ADMIN], dataEnv);
    expect(granted.exitCode).toBe(0);
    expect(granted.stdout).toContain(`granted admin to operator-admin <${ADMIN}>`);
    // The live session sees it at its next request.
    expect((await post("/book", { title: "Now" }, token)).status).toBe(201);

    const again = await runAdminCli(["grant", "operator-admin"], dataEnv);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain("already granted");
    const listed = await runAdminCli(["list"], dataEnv);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain(`operator-admin <${ADMIN}>`);
  }, 60_000);

  test("an unknown user: non-zero exit and one clear line", async () => {
    const result = await runAdminCli(["grant", "nobody@example.com"], dataEnv);
    expect(result.exitCode).not.toBe(0);
    const ours = result.stderr.split("\n").filter((line) => line.startsWith("bookdist admin:"));
    // Where it looked: the embedded store, in the database the server uses.
    const where = database ? new URL(database.url).toString() : join(dataDir, "bookdist.sqlite");
    expect(ours).toEqual([`bookdist admin: no user "nobody@example.com" in the embedded store at ${where}`]);
    expect((await runAdminCli(["revoke", "nobody"], dataEnv)).exitCode).not.toBe(0);
    expect((await runAdminCli(["promote", ADMIN], dataEnv)).exitCode).not.toBe(0);
  }, 30_000);

  test("revoke: the running server answers 403 at the session's next request", async () => {
    const revoked = await runAdminCli(["revoke", ADMIN], dataEnv);
    expect(revoked.exitCode).toBe(0);
    expect(revoked.stdout).toContain("revoked the admin grant of operator-admin");
    expect((await post("/book", { title: "No more" }, token)).status).toBe(403);
    expect((await runAdminCli(["list"], dataEnv)).stdout).toContain("no admin grants");
  }, 30_000);

  test("a server started with ADMIN_EMAILS stops with one line naming bun run admin grant", async () => {
    const stopped = await spawnServer({
      dataDir: join(root, "other"),
      env: { ADMIN_EMAILS: ADMIN },
      waitHealthy: false,
    });
    expect(await stopped.exited).not.toBe(0);
    const lines = stopped.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("ADMIN_EMAILS");
    expect(lines[0]).toContain("bun run admin grant");
  }, 30_000);
});

describe("files under DATA_DIR", () => {
  test("DATA_DIR is 0700; the database, its WAL, the secret and the blobs are 0600", async () => {
    await runAdminCli(["grant", ADMIN], dataEnv);
    const login = await post("/authentication/login", { email: ADMIN, password: PASSWORD });
    const token = ((await login.json()) as { token: string }).token;
    const book = await post("/book", { title: "Private" }, token);
    expect(book.status).toBe(201);
    const { id } = (await book.json()) as { id: number };
    const form = new FormData();
    const png = new Uint8Array(await QRCode.toBuffer("cover", { width: 64 }));
    form.append("file", new Blob([png], { type: "image/png" }), "cover.png");
    const cover = await fetch(`${server.url}/book/${id}/cover`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    expect(cover.status).toBe(200);

    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(dataDir)).toBe(0o700);
    const files = listFiles(dataDir);
    const expected = [
      "jwt-secret",
      ...(database ? [] : ["bookdist.sqlite", "bookdist.sqlite-wal", "bookdist.sqlite-shm"]),
    ];
    for (const name of expected) expect(files.map((file) => file.slice(dataDir.length + 1))).toContain(name);
    expect(files.some((file) => file.includes(`${join("blobs", "")}`))).toBe(true);
    for (const file of files) expect({ file, mode: mode(file) }).toEqual({ file, mode: 0o600 });
    for (const dir of listDirs(dataDir)) expect({ dir, mode: mode(dir) }).toEqual({ dir, mode: 0o700 });
  }, 60_000);
});

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

function listDirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name));
}
