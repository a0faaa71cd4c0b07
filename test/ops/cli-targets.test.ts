// `bun run admin|storage …` say what they touch (src/cli-targets.ts): the first line of their
// output names the database, the store of users and the storage this environment names (a
// password never), `.env` is read as for the server, an unknown user is looked for in a named
// store, and the Postgres backup hint names the database in effect, not "$DATABASE_URL".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AdminCliResult, runAdminCli, runStorageCli } from "../helpers/admin-cli";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { onlyIn } from "../helpers/requires";
import { projectRoot } from "../helpers/spawn-server";
import { createWordPressDatabase, storeServerUrl, type WordPressDatabase } from "../helpers/wordpress";

const postgresServerUrl = process.env.TEST_DATABASE_URL;
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "bookdist-cli-targets-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const firstLine = (result: { stdout: string }) => result.stdout.split("\n")[0];
const output = (result: { stdout: string; stderr: string }) => `${result.stdout}\n${result.stderr}`;
/** The lines the CLI itself wrote to stderr (not Bun's `$ bun run …` echo). */
const ownErrors = (result: { stderr: string }, cli: "admin" | "storage") =>
  result.stderr.split("\n").filter((line) => line.startsWith(`bookdist ${cli}:`));

describe("on SQLite, the embedded store and local files (the defaults)", () => {
  test("the first line names the SQLite file, the embedded store and DATA_DIR/blobs", async () => {
    const dataDir = join(root, "sqlite");
    const expected = `database: SQLite ${dataDir}/bookdist.sqlite; users: the embedded store (in that database); storage: local ${dataDir}/blobs`;
    const listed = await runAdminCli(["list"], { DATA_DIR: dataDir });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(firstLine(listed)).toBe(expected);
    expect(listed.stdout.split("\n")[1]).toStartWith("no admin grants");

    const adopted = await runStorageCli(["adopt"], { DATA_DIR: dataDir });
    expect(adopted.exitCode, adopted.stderr).toBe(0);
    expect(firstLine(adopted)).toBe(expected);
    expect(adopted.stdout.split("\n")[1]).toStartWith("adopted 0 blob(s)");
  }, 30_000);

  test("an unknown user is looked for in the embedded store at that file", async () => {
    const dataDir = join(root, "sqlite");
    const granted = await runAdminCli(["grant", "nobody@example.com"], { DATA_DIR: dataDir });
    expect(granted.exitCode).toBe(1);
    expect(ownErrors(granted, "admin")).toEqual([
      `bookdist admin: no user "nobody@example.com" in the embedded store at ${dataDir}/bookdist.sqlite`,
    ]);
    const uuid = "0b0e8d5e-8f3c-4d4a-9c39-6a4f4fb1c0de";
    const revoked = await runAdminCli(["revoke", uuid], { DATA_DIR: dataDir });
    expect(ownErrors(revoked, "admin")).toEqual([
      `bookdist admin: no user "${uuid}" in the embedded store at ${dataDir}/bookdist.sqlite, nor an admin grant for it in the database (SQLite ${dataDir}/bookdist.sqlite)`,
    ]);
  }, 30_000);

  test("storage migrate without a bucket says which storage is in effect", async () => {
    const dataDir = join(root, "sqlite");
    const result = await runStorageCli(["migrate"], { DATA_DIR: dataDir });
    expect(result.exitCode).toBe(2);
    expect(ownErrors(result, "storage")).toEqual([
      `bookdist storage: the storage is local ${dataDir}/blobs: STORAGE=s3 and S3_BUCKET must be set: they name the bucket to copy into`,
    ]);
  }, 30_000);
});

describe("an S3 bucket: endpoint, bucket and prefix, never the secret key", () => {
  test("the first line names the bucket; the error says where it tried to copy", async () => {
    const dataDir = join(root, "s3");
    // One blob to copy (blobs/<first two hex digits>/<sha256>).
    const hash = new Bun.CryptoHasher("sha256").update("a blob").digest("hex");
    mkdirSync(join(dataDir, "blobs", hash.slice(0, 2)), { recursive: true });
    writeFileSync(join(dataDir, "blobs", hash.slice(0, 2), hash), "a blob");
    // A port nothing listens on: the copy fails at once, after the first line.
    const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = listener.port;
    listener.stop(true);
    const secret = "cli-targets-secret-key-0123456789";
    const result = await runStorageCli(["migrate"], {
      DATA_DIR: dataDir,
      STORAGE: "s3",
      S3_BUCKET: "books",
      S3_PREFIX: "bookdist/",
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_ACCESS_KEY_ID: "cli-targets-access",
      S3_SECRET_ACCESS_KEY: secret,
    });
    expect(firstLine(result)).toBe(
      `database: SQLite ${dataDir}/bookdist.sqlite; users: the embedded store (in that database); storage: bucket "books" at http://127.0.0.1:${port}/ (S3, prefix "bookdist/")`,
    );
    expect(result.exitCode).toBe(1);
    expect(ownErrors(result, "storage")).toEqual([
      `bookdist storage: failed copying local ${dataDir}/blobs into bucket "books" at http://127.0.0.1:${port}/ (S3, prefix "bookdist/"): The file storage cannot be reached; try again shortly.`,
    ]);
    expect(output(result)).not.toContain(secret);
  }, 30_000);
});

describe("the Postgres backup hint: the database in effect, without its password", () => {
  test("pg_dump names the URL the CLI was given (here no server is needed: nothing connects)", async () => {
    const dataDir = join(root, "pg-hint");
    const password = "hint-password-not-to-print";
    const url = `postgres://bookdist:${password}@db.invalid:5432/books_live?sslmode=require`;
    const result = await runAdminCli(["backup", join(root, "pg-hint-backup")], {
      DATA_DIR: dataDir,
      DATABASE_URL: url,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(firstLine(result)).toStartWith(
      "database: Postgres postgres://bookdist:***@db.invalid:5432/books_live?sslmode=require;",
    );
    expect(result.stdout).toContain(
      "pg_dump -Fc -f bookdist.dump 'postgres://bookdist@db.invalid:5432/books_live?sslmode=require' (its password is not shown: give it in PGPASSWORD or ~/.pgpass)",
    );
    expect(result.stdout).not.toContain("$DATABASE_URL");
    expect(output(result)).not.toContain(password);

    const restored = await runAdminCli(["restore", join(root, "pg-hint-backup")], {
      DATA_DIR: join(root, "pg-hint-restored"),
      DATABASE_URL: url,
    });
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(restored.stdout).toContain(
      "pg_restore -d 'postgres://bookdist@db.invalid:5432/books_live?sslmode=require' bookdist.dump",
    );
    expect(output(restored)).not.toContain(password);
  }, 30_000);
});

describe.if(onlyIn(postgresServerUrl !== undefined, "Postgres: runs with TEST_DATABASE_URL"))(
  "on Postgres",
  () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(() => database?.drop());

    test("the first line names the Postgres URL with its password masked", async () => {
      const dataDir = join(root, "pg");
      // A password in the URL (the test server's own, or one it ignores under trust auth).
      const url = new URL(database.url);
      url.password ||= "pg-password-not-to-print";
      const password = decodeURIComponent(url.password);
      const listed = await runAdminCli(["list"], { DATA_DIR: dataDir, DATABASE_URL: url.toString() });
      url.password = "***";
      expect(firstLine(listed)).toBe(
        `database: Postgres ${url.toString()}; users: the embedded store (in that database); storage: local ${dataDir}/blobs`,
      );
      expect(output(listed)).not.toContain(`:${password}@`);

      const granted = await runAdminCli(["grant", "nobody@example.com"], {
        DATA_DIR: dataDir,
        DATABASE_URL: database.url,
      });
      expect(granted.exitCode).toBe(1);
      expect(ownErrors(granted, "admin")).toEqual([
        `bookdist admin: no user "nobody@example.com" in the embedded store at ${new URL(database.url).password ? url.toString() : database.url}`,
      ]);
    }, 30_000);
  },
);

describe.if(onlyIn(storeServerUrl !== undefined, "the WordPress store: runs with TEST_STORE_DATABASE_URL"))(
  "the WordPress store",
  () => {
    let wp: WordPressDatabase;
    beforeAll(async () => {
      wp = await createWordPressDatabase(storeServerUrl!);
    });
    afterAll(() => wp?.drop());

    test("the first line and an unknown user name the shop's database and table prefix", async () => {
      const dataDir = join(root, "wordpress");
      const env = { DATA_DIR: dataDir, STORE_DRIVER: "wordpress", STORE_DATABASE_URL: wp.url };
      const granted = await runAdminCli(["grant", "nobody@example.com"], env);
      const store = `the WordPress store at ${new URL(wp.url).password ? maskedForTest(wp.url) : wp.url} (prefix wp_)`;
      expect(firstLine(granted)).toBe(
        `database: SQLite ${dataDir}/bookdist.sqlite; users: ${store}; storage: local ${dataDir}/blobs`,
      );
      expect(granted.exitCode).toBe(1);
      expect(ownErrors(granted, "admin")).toEqual([
        `bookdist admin: no user "nobody@example.com" in ${store}`,
      ]);
    }, 30_000);

    test("a password in STORE_DATABASE_URL is masked, also when the shop refuses it", async () => {
      const dataDir = join(root, "wordpress");
      const url = new URL(wp.url);
      url.password = "store-password-not-to-print";
      const result = await runAdminCli(["grant", "nobody@example.com"], {
        DATA_DIR: dataDir,
        STORE_DRIVER: "wordpress",
        STORE_DATABASE_URL: url.toString(),
      });
      expect(firstLine(result)).toContain(`users: the WordPress store at ${maskedForTest(url.toString())}`);
      expect(output(result)).not.toContain("store-password-not-to-print");
    }, 30_000);
  },
);

function maskedForTest(text: string): string {
  const url = new URL(text);
  url.password = "***";
  return url.toString();
}

describe(".env: read by the CLI as by the server", () => {
  // The server and the CLI are both `bun run <script>` from the project's folder, and Bun loads
  // that folder's `.env` for every `bun run`. A copy of the project whose `.env` names its own
  // SQLite file shows it: the CLI's first line names that file. Every other test gives its
  // children BUN_OPTIONS=--no-env-file (test/helpers/child-env.ts, and the preload adds it to every
  // Bun.spawn), which is exactly what must not hold here: `env -u BUN_OPTIONS` runs bun without
  // it, in an environment that holds no configuration variable (an empty one would win over
  // `.env`). The `.env` is the copy's own; the project's real `.env` is never read or written.
  let copy: string;
  beforeAll(() => {
    copy = join(root, "project");
    mkdirSync(copy);
    for (const name of ["src", "drizzle", "node_modules"])
      symlinkSync(join(projectRoot, name), join(copy, name));
    for (const name of ["package.json", "tsconfig.json"])
      copyFileSync(join(projectRoot, name), join(copy, name));
    writeFileSync(
      join(copy, ".env"),
      `DATA_DIR=${join(copy, "dotenv-data")}\nDATABASE_URL=sqlite:${join(copy, "dotenv-data", "from-dotenv.sqlite")}\n`,
    );
    mkdirSync(join(copy, "sub"));
  });

  async function adminIn(cwd: string): Promise<AdminCliResult> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", TZ: "UTC" };
    env.HOME = process.env.HOME ?? "/tmp";
    env.TMPDIR = process.env.TMPDIR ?? tmpdir();
    const child = Bun.spawn(["env", "-u", "BUN_OPTIONS", "bun", "run", "admin", "list"], {
      cwd,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { stdout, stderr, exitCode };
  }

  test("`bun run admin list` in the project's folder, or a folder below it, names the database of .env", async () => {
    const expected = `database: SQLite ${join(copy, "dotenv-data", "from-dotenv.sqlite")}; users: the embedded store (in that database); storage: local ${join(copy, "dotenv-data", "blobs")}`;
    for (const cwd of [copy, join(copy, "sub")]) {
      const result = await adminIn(cwd);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(firstLine(result)).toBe(expected);
    }
    expect(await Bun.file(join(copy, "dotenv-data", "from-dotenv.sqlite")).exists()).toBe(true);
  }, 30_000);
});
