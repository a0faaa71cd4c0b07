// `bun run admin backup` under write load and `bun run admin restore` into a fresh DATA_DIR, as
// README, Backups and upgrades promises: the restored database is one consistent moment (every row
// as the live one holds it, counters agreeing with their rows), every blob a row names is there
// with its sha256, and the sessions of the old server still work on the restored one (its
// jwt-secret came along).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { adminWithBook, runAdminCli } from "../helpers/admin-cli";
import { testDialect } from "../helpers/databases";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { onlyIn } from "../helpers/requires";
import { makeZip, multipartFile } from "../helpers/zip";

const PASSWORD = "backup test password 123";
/** Tables whose rows the live server changes after they were made: compared by count only. */
const CHANGING = new Set([
  "user_session",
  "rate_limit",
  "row_count",
  "book_qr_code_count",
  "qr_code_batch_count",
  "__drizzle_migrations",
  // A restore gives the copy a deployment id of its own (checked below).
  "deployment",
  // The restore is an event of the copy; the backup one of the live database (checked below).
  "audit_event",
]);

const sha256 = (bytes: Uint8Array | ArrayBuffer) =>
  new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

async function call(server: RealServer, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined || body instanceof FormData ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<Record<string, unknown>>;
}

/** One book with a version and a unique archive: three writes and a blob. */
async function writeOne(server: RealServer, token: string, n: number): Promise<void> {
  const book = await call(server, "POST", "/book", token, { title: `Under load ${n}` });
  const version = await call(server, "POST", "/bookversion", token, {
    bookId: book.id,
    versionCode: 1,
    versionName: "1.0",
  });
  const archive = makeZip({ "book.txt": `book ${n} ${crypto.randomUUID()}`.repeat(200) });
  await call(
    server,
    "POST",
    `/bookversion/${version.id}/upload`,
    token,
    multipartFile(archive, { filename: `b${n}.zip` }),
  );
  await call(server, "POST", "/activation-qr-code", token, { bookId: book.id });
}

/**
 * The rows compared, as SQL: a version made by the load gets its archive by a later request, so
 * a copy may hold it from before that upload (same row, no archive yet).
 */
const COMPARED: Record<string, string> = {
  book_version: "SELECT * FROM book_version WHERE archive_sha256 IS NOT NULL",
  book_version_without_archive:
    "SELECT id, book_id, version_code, version_name, created_at FROM book_version",
};

function rowsOf(db: Database, table: string): string[] {
  return db
    .query(COMPARED[table] ?? `SELECT * FROM "${table}"`)
    .all()
    .map((row) => JSON.stringify(row))
    .sort();
}

function tablesOf(db: Database): string[] {
  return db
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => (row as { name: string }).name);
}

describe.if(onlyIn(testDialect === "sqlite", "SQLite backup and restore: runs without TEST_DATABASE_URL"))(
  "backup under write load, restore into a fresh DATA_DIR (SQLite)",
  () => {
    let live: RealServer;
    let restored: RealServer | undefined;
    const work = mkdtempSync(join(tmpdir(), "bookdist-backup-test-"));
    const backupDir = join(work, "backup");
    const restoredDataDir = join(work, "restored-data");
    let admin: { token: string; bookId: number };
    let readerToken: string;
    let backupOutput = "";
    let writesBefore = 0;
    let writesDuring = 0;

    beforeAll(async () => {
      // JWT_SECRET unset: the server generates DATA_DIR/jwt-secret, which the backup must carry.
      live = await startRealServer({ env: { JWT_SECRET: "" } });
      admin = await adminWithBook(live, live.dataEnv, {
        email: "backup-admin@example.com",
        password: PASSWORD,
        bookTitle: "Held by the reader",
      });
      const reader = await fetch(`${live.url}/authentication/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: "backup-reader@example.com", password: PASSWORD }),
      });
      readerToken = ((await reader.json()) as { token: string }).token;
      const code = await call(live, "POST", "/activation-qr-code", admin.token, { bookId: admin.bookId });
      await call(live, "POST", "/activation/by-qr-code", readerToken, { code: code.code });
      for (; writesBefore < 5; writesBefore++) await writeOne(live, admin.token, writesBefore);

      // Writers keep going for as long as the backup runs, and a little beyond.
      let backupDone = false;
      const writers = [0, 1].map(async (lane) => {
        let n = 1000 * (lane + 1);
        while (!backupDone) {
          await writeOne(live, admin.token, n++);
          writesDuring++;
        }
      });
      const result = await runAdminCli(["backup", backupDir], live.dataEnv);
      backupDone = true;
      await Promise.all(writers);
      backupOutput = result.stdout + result.stderr;
      if (result.exitCode !== 0) throw new Error(`backup failed: ${backupOutput}`);
    }, 120_000);

    afterAll(async () => {
      await restored?.stop();
      await live?.stop();
      rmSync(work, { recursive: true, force: true });
    });

    test("the backup was taken while writes went on, and says what it holds", () => {
      expect(writesDuring).toBeGreaterThan(0);
      expect(backupOutput).toMatch(/backed up the database, \d+ blobs \(\d+ bytes\) and the jwt-secret/);
      expect(readdirSync(backupDir).sort()).toEqual([
        "backup.json",
        "blobs",
        "bookdist.sqlite",
        "jwt-secret",
      ]);
    });

    test("restore refuses a DATA_DIR that is not empty", async () => {
      const result = await runAdminCli(["restore", backupDir], { DATA_DIR: live.dataDir });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain("is not empty");
    });

    test("the restored database is one consistent moment: every row as the live server holds it", async () => {
      const result = await runAdminCli(["restore", backupDir], { DATA_DIR: restoredDataDir });
      expect(result.exitCode, result.stderr).toBe(0);
      const copy = new Database(join(restoredDataDir, "bookdist.sqlite"), { readonly: true });
      const source = new Database(join(live.dataDir, "bookdist.sqlite"), { readonly: true });
      try {
        expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
        expect(copy.query("PRAGMA foreign_key_check").all()).toEqual([]);
        const tables = tablesOf(copy);
        expect(tables).toEqual(tablesOf(source));
        for (const table of tables) {
          if (CHANGING.has(table)) continue;
          // Nothing in the load updates or deletes these rows: each restored row is a live one.
          const live = new Set(rowsOf(source, table));
          const missing = rowsOf(copy, table).filter((row) => !live.has(row));
          expect(missing, `${table} rows not as the live server holds them`).toEqual([]);
        }
        const deploymentOf = (database: Database) =>
          database.query("SELECT id, original_id FROM deployment").all() as {
            id: string;
            original_id: string;
          }[];
        const [original] = deploymentOf(source);
        expect(deploymentOf(copy)).toEqual([
          { id: expect.stringMatching(/^[0-9a-f]{32}$/), original_id: original!.id },
        ]);
        expect(deploymentOf(copy)[0]!.id).not.toBe(original!.id);
        // The audit log: the copy holds the live events and its restore; the live one its backup.
        const eventsOf = (database: Database) =>
          database.query("SELECT * FROM audit_event ORDER BY id").all() as Record<string, unknown>[];
        const liveEvents = new Set(eventsOf(source).map((row) => JSON.stringify(row)));
        const [restoreEvent, ...others] = eventsOf(copy).reverse();
        expect(restoreEvent).toMatchObject({
          action: "backup.restore",
          actor_via: "cli",
          target_type: "deployment",
        });
        expect(JSON.parse(restoreEvent!.changes as string)).toMatchObject({
          deploymentId: [original!.id, deploymentOf(copy)[0]!.id],
        });
        expect(others.filter((row) => !liveEvents.has(JSON.stringify(row)))).toEqual([]);
        expect(others.length).toBeGreaterThan(writesBefore);
        const backups = eventsOf(source).filter((row) => row.action === "backup.create");
        expect(backups).toMatchObject([{ actor_via: "cli", target_type: "backup" }]);
        expect(JSON.parse(backups[0]!.changes as string)).toMatchObject({
          database: [null, "sqlite"],
          jwtKeyFile: [null, true],
        });
        // The counters the triggers keep agree with the rows: no half of a transaction was copied.
        for (const { table_name, n } of copy
          .query("SELECT table_name, sum(n) AS n FROM row_count GROUP BY table_name")
          .all() as {
          table_name: string;
          n: number;
        }[]) {
          const actual = copy.query(`SELECT count(*) AS n FROM "${table_name}"`).get() as { n: number };
          expect(actual.n, `row_count of ${table_name}`).toBe(n);
        }
        // Everything written before the backup began is in it; so is some of what came during.
        const books = (copy.query("SELECT count(*) AS n FROM book").get() as { n: number }).n;
        expect(books).toBeGreaterThanOrEqual(1 + writesBefore);
        // Every version's archive was uploaded in its own request after the version row: a
        // consistent copy may hold a version without its archive yet, never an archive without a blob.
        const named = copy
          .query(
            "SELECT sha256 FROM blob UNION SELECT archive_sha256 FROM book_version WHERE archive_sha256 IS NOT NULL",
          )
          .all() as { sha256: string }[];
        expect(named.length).toBeGreaterThanOrEqual(writesBefore);
        for (const { sha256: name } of named) {
          const file = Bun.file(join(restoredDataDir, "blobs", name.slice(0, 2), name));
          expect(await file.exists(), `blob ${name}`).toBe(true);
          expect(sha256(await file.arrayBuffer()), `blob ${name}`).toBe(name);
        }
      } finally {
        copy.close();
        source.close();
      }
    });

    test("the restored server serves the old sessions, the reader's book and its files", async () => {
      restored = await startRealServer({ env: { JWT_SECRET: "", DATA_DIR: restoredDataDir } });
      const me = await fetch(`${restored.url}/authentication/me`, {
        headers: { Authorization: `Bearer ${admin.token}` },
      });
      expect(me.status).toBe(200);
      expect(((await me.json()) as { roles: string[] }).roles).toContain("admin");
      const shelf = await fetch(`${restored.url}/book/my-books`, {
        headers: { Authorization: `Bearer ${readerToken}` },
      });
      expect(shelf.status).toBe(200);
      expect(((await shelf.json()) as { book: { id: number } }[]).map((entry) => entry.book.id)).toEqual([
        admin.bookId,
      ]);
      // An archive written before the backup downloads with the bytes its sha256 names.
      const versions = (await call(restored, "GET", "/bookversion?sort=id", admin.token)) as unknown as {
        id: number;
        archive: { sha256: string } | null;
      }[];
      const withArchive = versions.find((version) => version.archive !== null)!;
      const download = await fetch(`${restored.url}/bookversion/${withArchive.id}/download`, {
        headers: { Authorization: `Bearer ${admin.token}` },
      });
      expect(download.status).toBe(200);
      expect(sha256(await download.arrayBuffer())).toBe(withArchive.archive!.sha256);
    });
  },
);

describe.if(onlyIn(testDialect === "postgres", "backup on Postgres: runs with TEST_DATABASE_URL"))(
  "backup on Postgres: the blobs and jwt-secret, pg_dump for the rest",
  () => {
    let live: RealServer;
    const work = mkdtempSync(join(tmpdir(), "bookdist-backup-pg-test-"));
    afterAll(async () => {
      await live?.stop();
      rmSync(work, { recursive: true, force: true });
    });

    test("says to use pg_dump, copies the blobs, and restore says to use pg_restore", async () => {
      live = await startRealServer({ env: { JWT_SECRET: "" } });
      const admin = await adminWithBook(live, live.dataEnv, {
        email: "backup-admin@example.com",
        password: PASSWORD,
        bookTitle: "On Postgres",
      });
      await writeOne(live, admin.token, 1);
      const backupDir = join(work, "backup");
      const result = await runAdminCli(["backup", backupDir], live.dataEnv);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toContain("pg_dump");
      expect(readdirSync(backupDir).sort()).toEqual(["backup.json", "blobs", "jwt-secret"]);
      const restoredDataDir = join(work, "restored");
      const restore = await runAdminCli(["restore", backupDir], {
        DATA_DIR: restoredDataDir,
        DATABASE_URL: live.dataEnv.DATABASE_URL!,
      });
      expect(restore.exitCode, restore.stderr).toBe(0);
      expect(restore.stdout).toContain("pg_restore");
      const blobs = readdirSync(join(restoredDataDir, "blobs"), { recursive: true }).filter((name) =>
        /[0-9a-f]{64}$/.test(String(name)),
      );
      expect(blobs.length).toBeGreaterThan(0);
    });
  },
);

describe("backup with STORAGE=s3: the blobs stay in the bucket", () => {
  const work = mkdtempSync(join(tmpdir(), "bookdist-backup-s3-test-"));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  test("copies the database and jwt-secret but no blob, says so, and restore leaves the bucket's blobs alone", async () => {
    // No server and no bucket: a backup reads DATA_DIR only. A file under blobs/ stands for an
    // upload's spool, which must not be taken for the blobs.
    const dataDir = join(work, "data");
    const s3 = { STORAGE: "s3", S3_BUCKET: "bookdist-backup-test" };
    await Bun.write(join(dataDir, "blobs", "ab", "ab".repeat(32)), "spooled");
    await Bun.write(join(dataDir, "jwt-secret"), "a-secret-of-this-test-0123456789-abcdef");
    // A bookdist database (restore gives the copy a deployment id of its own in it).
    await (await openDatabase(`sqlite:${join(dataDir, "bookdist.sqlite")}`, { migrate: true })).close();
    const database = new Database(join(dataDir, "bookdist.sqlite"));
    database.run("INSERT INTO book (title, created_at, updated_at) VALUES ('kept', 0, 0)");
    database.close();

    const backupDir = join(work, "backup");
    const result = await runAdminCli(["backup", backupDir], { DATA_DIR: dataDir, ...s3 });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain("S3 bucket");
    expect(readdirSync(backupDir).sort()).toEqual(["backup.json", "bookdist.sqlite", "jwt-secret"]);
    expect(await Bun.file(join(backupDir, "backup.json")).json()).toMatchObject({
      blobsIn: "bucket",
      blobs: 0,
    });

    const restoredDataDir = join(work, "restored");
    const restore = await runAdminCli(["restore", backupDir], { DATA_DIR: restoredDataDir, ...s3 });
    expect(restore.exitCode, restore.stderr).toBe(0);
    expect(restore.stdout).toContain("no blobs");
    const restored = new Database(join(restoredDataDir, "bookdist.sqlite"), { readonly: true });
    expect(restored.query("SELECT title FROM book").all()).toEqual([{ title: "kept" }]);
    restored.close();
  });
});
