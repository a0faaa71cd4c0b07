// Issue 34, findings 6 and 10: a deployment's blob cleanup deletes only its own deployment's files
// and objects (README "Storage"). Through the real server, with the cleanup every second and the
// shortest grace (10 s):
// - a server switched from SQLite to Postgres with the same DATA_DIR leaves the SQLite
//   deployment's cover in place, and it downloads again after switching back (finding 10);
// - a copy restored from a backup on the same bucket and prefix (real Ceph) leaves an object
//   production uploaded after the backup (finding 6);
// - `bun run storage adopt` makes the copy, once it replaces production, clean up what it names.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "bun";
import QRCode from "qrcode";
import { parseConfig } from "../../src/config";
import { adminWithBook, runAdminCli, runStorageCli } from "../helpers/admin-cli";
import { requireCeph } from "../helpers/ceph";
import { createTestDatabase, type TestDatabase, testDialect } from "../helpers/databases";
import { onlyIn, startsRealServer } from "../helpers/requires";
import { s3Env } from "../helpers/s3-env";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";
import { TEST_PASSWORD } from "../helpers/test-app";

/** The cleanup every second, removing what is older than the shortest grace allowed. */
const CLEANUP_ENV = { BLOB_CLEANUP_CRON: "* * * * * *", BLOB_CLEANUP_GRACE: "10s" };
const GRACE_MS = 10_000;

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const png = async (text: string) => new Uint8Array(await QRCode.toBuffer(text, { width: 200 }));

const folders: string[] = [];
const servers: SpawnedServer[] = [];
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.kill("SIGKILL");
    await server.exited;
  }
  for (const database of databases) await database.drop();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function folder(name: string): string {
  const path = mkdtempSync(join(tmpdir(), `bookdist-${name}-`));
  folders.push(path);
  return path;
}

async function start(dataDir: string, env: Record<string, string>): Promise<SpawnedServer> {
  const server = await spawnServer({ dataDir, env: { ...CLEANUP_ENV, ...env } });
  servers.push(server);
  return server;
}

async function stop(server: SpawnedServer): Promise<void> {
  server.kill("SIGTERM");
  expect(await server.exited).toBe(0);
}

/** The blob-cleanup runs the server has logged as done so far. */
function cleanupRuns(server: SpawnedServer): Array<Record<string, unknown>> {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry.msg === "job done" && entry.job === "blob-cleanup");
}

/** Waits until the server has finished `count` more cleanup runs than it had when called. */
async function moreCleanupRuns(server: SpawnedServer, count: number): Promise<void> {
  const target = cleanupRuns(server).length + count;
  const deadline = Date.now() + 20_000;
  while (cleanupRuns(server).length < target) {
    if (Date.now() > deadline)
      throw new Error(`the server ran its blob cleanup ${cleanupRuns(server).length} time(s), not ${target}`);
    await Bun.sleep(200);
  }
}

async function uploadCover(server: { url: string }, token: string, bookId: number, bytes: Uint8Array) {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type: "image/png" }), "cover.png");
  const response = await fetch(`${server.url}/book/${bookId}/cover`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
    body: form,
  });
  expect(response.status).toBe(200);
}

async function coverOf(server: { url: string }, bookId: number): Promise<Uint8Array | number> {
  const response = await fetch(`${server.url}/book/${bookId}/cover`);
  return response.status === 200 ? new Uint8Array(await response.arrayBuffer()) : response.status;
}

describe("BLOB_CLEANUP_GRACE", () => {
  test("below 10s is refused with one line naming the rule; 10s is taken", () => {
    const refused = parseConfig({ BLOB_CLEANUP_GRACE: "9s" });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.problems).toHaveLength(1);
      expect(refused.problems[0]).toContain("BLOB_CLEANUP_GRACE");
      expect(refused.problems[0]).toContain("10s");
    }
    const taken = parseConfig({ BLOB_CLEANUP_GRACE: "10s", BLOB_CLEANUP_CRON: "* * * * * *" });
    expect(taken.ok && taken.config.blobCleanupGraceMs).toBe(GRACE_MS);
  });
});

describe.if(
  onlyIn(testDialect === "postgres", "needs TEST_DATABASE_URL: a switch from SQLite to Postgres") &&
    startsRealServer(),
)("a server switched from SQLite to Postgres with the same DATA_DIR (finding 10)", () => {
  test("its cleanup leaves the SQLite deployment's cover, which downloads again after switching back", async () => {
    const dataDir = folder("switch");
    // SQLite: the server's default database file in DATA_DIR.
    const sqlite = await start(dataDir, {});
    const { token, bookId } = await adminWithBook(
      sqlite,
      { DATA_DIR: dataDir },
      { email: "switch-admin@example.com", password: TEST_PASSWORD, bookTitle: "Switched" },
    );
    const cover = await png("the SQLite deployment's cover");
    await uploadCover(sqlite, token, bookId, cover);
    await stop(sqlite);
    const file = join(dataDir, "blobs", sha256(cover).slice(0, 2), sha256(cover));
    expect(existsSync(file)).toBe(true);
    // An hour old: well past the grace, as it would be when the switch happens.
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(file, anHourAgo, anHourAgo);

    const postgres = await createTestDatabase();
    databases.push(postgres);
    await postgres.handle.close();
    const switched = await start(dataDir, { DATABASE_URL: postgres.url });
    await moreCleanupRuns(switched, 2);
    expect(existsSync(file)).toBe(true);

    // Its own files it still cleans up: a replaced cover goes once past the grace.
    const own = await adminWithBook(
      switched,
      { DATA_DIR: dataDir, DATABASE_URL: postgres.url },
      { email: "postgres-admin@example.com", password: TEST_PASSWORD, bookTitle: "On Postgres" },
    );
    const replaced = await png("replaced on Postgres");
    await uploadCover(switched, own.token, own.bookId, replaced);
    await uploadCover(switched, own.token, own.bookId, await png("kept on Postgres"));
    const replacedFile = join(dataDir, "blobs", sha256(replaced).slice(0, 2), sha256(replaced));
    expect(existsSync(replacedFile)).toBe(true);
    await Bun.sleep(GRACE_MS + 500);
    await moreCleanupRuns(switched, 2);
    expect(existsSync(replacedFile)).toBe(false);
    expect(existsSync(file)).toBe(true);
    await stop(switched);

    const back = await start(dataDir, {});
    expect(await coverOf(back, bookId)).toEqual(cover);
    await stop(back);
  }, 120_000);
});

describe.if(requireCeph())("a restored copy on the same bucket and prefix (finding 6)", () => {
  test("its cleanup leaves production's later object; after `storage adopt` it cleans up what it names", async () => {
    const s3 = await s3Env("proxy");
    const bucket = new S3Client({
      bucket: s3.S3_BUCKET,
      endpoint: s3.S3_ENDPOINT,
      region: s3.S3_REGION,
      accessKeyId: s3.S3_ACCESS_KEY_ID,
      secretAccessKey: s3.S3_SECRET_ACCESS_KEY,
    });
    const objectThere = (bytes: Uint8Array) => bucket.file(`${s3.S3_PREFIX}blobs/${sha256(bytes)}`).exists();

    const productionDir = folder("production");
    const production = await start(productionDir, s3);
    const productionEnv = { DATA_DIR: productionDir, ...s3 };
    const { token, bookId } = await adminWithBook(production, productionEnv, {
      email: "production-admin@example.com",
      password: TEST_PASSWORD,
      bookTitle: "Before the backup",
    });
    const before = await png("uploaded before the backup");
    await uploadCover(production, token, bookId, before);

    // The copy, made as README "Backups" says: a backup of the running server, restored into an
    // empty DATA_DIR with the same bucket and prefix.
    const backupDir = join(folder("backup"), "copy");
    expect((await runAdminCli(["backup", backupDir], productionEnv)).exitCode).toBe(0);
    const copyDir = folder("copy");
    const copyEnv = { DATA_DIR: copyDir, ...s3 };
    const restored = await runAdminCli(["restore", backupDir], copyEnv);
    expect(restored.exitCode).toBe(0);

    // Production goes on: a book and its cover the copy's database has never heard of.
    const book = await fetch(`${production.url}/book`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ title: "After the backup" }),
    });
    expect(book.status).toBe(201);
    const laterBookId = ((await book.json()) as { id: number }).id;
    const after = await png("uploaded after the backup");
    await uploadCover(production, token, laterBookId, after);
    const uploadedAt = Date.now();

    const copy = await start(copyDir, s3);
    // Runs of the copy's cleanup once production's object is past the grace.
    await Bun.sleep(Math.max(0, uploadedAt + GRACE_MS + 500 - Date.now()));
    await moreCleanupRuns(copy, 2);
    expect(await objectThere(after)).toBe(true);
    expect(await coverOf(production, laterBookId)).toEqual(after);

    // The copy replaces production: production stops, the copy takes over what it names.
    await stop(production);
    const adopted = await runStorageCli(["adopt"], copyEnv);
    expect(adopted.exitCode).toBe(0);
    // The first line says what it touches (src/cli-targets.ts), the second what it did.
    const lines = adopted.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toStartWith("database: ");
    expect(lines[1]).toMatch(/^adopted 1 blob\(s\) /);
    // Idempotent: the same count again.
    expect((await runStorageCli(["adopt"], copyEnv)).stdout.split("\n")[1]).toMatch(/^adopted 1 blob\(s\) /);

    const login = await fetch(`${copy.url}/authentication/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "production-admin@example.com", password: TEST_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const copyToken = ((await login.json()) as { token: string }).token;
    // Each adoption is an audit event of the operator's (README "Audit log").
    const adoptions = await fetch(`${copy.url}/audit-event?action=storage.adopt`, {
      headers: { Authorization: `Bearer ${copyToken}` },
    });
    expect(await adoptions.json()).toMatchObject([
      { actor: { via: "cli" }, changes: { adopted: [null, 1] } },
      { actor: { via: "cli" }, changes: { adopted: [null, 1] } },
    ]);
    const replacement = await png("the copy's new cover");
    await uploadCover(copy, copyToken, bookId, replacement);
    expect(await objectThere(before)).toBe(true);
    await Bun.sleep(GRACE_MS + 500);
    await moreCleanupRuns(copy, 2);
    // What it named and replaced goes; what production wrote after the backup stays.
    expect(await objectThere(before)).toBe(false);
    expect(await objectThere(replacement)).toBe(true);
    expect(await objectThere(after)).toBe(true);
    expect(await coverOf(copy, bookId)).toEqual(replacement);
    await stop(copy);
  }, 180_000);
});
