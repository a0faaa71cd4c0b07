// A backup folder is only as trustworthy as whoever could write it, so `bun run admin restore`
// checks it and `bun run admin backup` keeps it private (README "Backups and upgrades"). Run
// through the CLI as an operator runs it: a backup of a small DATA_DIR (a database, two blobs, a
// jwt-secret) is taken once, and each test restores a tampered copy of it. The first test replays
// the forge of issue 34: a blob replaced by a link to another instance's jwt-secret, which the
// restored server would then have published as a book cover.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/client";
import { runAdminCli } from "../helpers/admin-cli";
import { requireTool } from "../helpers/requires";

const sha256 = (bytes: string | Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const blobPath = (root: string, hash: string) => join(root, "blobs", hash.slice(0, 2), hash);

const work = mkdtempSync(join(tmpdir(), "bookdist-backup-checks-"));
const hasMkfifo = requireTool("mkfifo", "coreutils");

const COVER = `a cover's bytes ${crypto.randomUUID()}`;
const ARCHIVE = `an archive's bytes ${crypto.randomUUID()}`.repeat(100);
const COVER_HASH = sha256(COVER);
const ARCHIVE_HASH = sha256(ARCHIVE);
const SECRET = `this-instance-secret-${crypto.randomUUID()}`;
/** Another deployment's secret on the same machine, which the restoring user can read. */
const OTHER_SECRET = `other-instance-secret-${crypto.randomUUID()}`;
const otherSecretPath = join(work, "other-instance", "jwt-secret");
const good = join(work, "good-backup");
let copies = 0;

/** A copy of the good backup to tamper with. */
function copyOfBackup(): string {
  const copy = join(work, `backup-${++copies}`);
  cpSync(good, copy, { recursive: true });
  return copy;
}

function editManifest(backup: string, edit: (manifest: Record<string, unknown>) => void): void {
  const path = join(backup, "backup.json");
  const manifest = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  edit(manifest);
  writeFileSync(path, JSON.stringify(manifest));
}

/** A DATA_DIR to restore into, in a folder of its own so that any leftover beside it shows. */
function restoreTarget(options: { exists?: boolean } = {}): { parent: string; dataDir: string } {
  const parent = join(work, `target-${++copies}`);
  const dataDir = join(parent, "data");
  mkdirSync(options.exists ? dataDir : parent, { recursive: true });
  return { parent, dataDir };
}

/** Every file's text under `root`, to show that a secret landed nowhere. */
function textsUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true })
    .map((name) => join(root, String(name)))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, "latin1"));
}

/** What the CLI itself says (bun run adds a line naming the script, and its exit code). */
const ourLines = (output: string) => output.split("\n").filter((line) => line.startsWith("bookdist admin:"));

const restore = (backup: string, dataDir: string) => runAdminCli(["restore", backup], { DATA_DIR: dataDir });

/** A refused restore: exit 1, one line saying why, and nothing written where DATA_DIR goes. */
async function expectRefused(backup: string, reason: RegExp): Promise<{ stderr: string }> {
  const { parent, dataDir } = restoreTarget();
  const result = await restore(backup, dataDir);
  expect(result.exitCode, result.stdout).toBe(1);
  expect(ourLines(result.stderr)).toHaveLength(1);
  expect(result.stderr).toMatch(reason);
  expect(readdirSync(parent)).toEqual([]);
  return result;
}

beforeAll(async () => {
  const dataDir = join(work, "live");
  for (const [hash, bytes] of [
    [COVER_HASH, COVER],
    [ARCHIVE_HASH, ARCHIVE],
  ] as const) {
    mkdirSync(join(dataDir, "blobs", hash.slice(0, 2)), { recursive: true });
    writeFileSync(blobPath(dataDir, hash), bytes);
  }
  writeFileSync(join(dataDir, "jwt-secret"), SECRET);
  // A bookdist database: restore gives the copy a deployment id of its own in it.
  await (await openDatabase(`sqlite:${join(dataDir, "bookdist.sqlite")}`, { migrate: true })).close();
  const database = new Database(join(dataDir, "bookdist.sqlite"));
  database.run("INSERT INTO blob (sha256, size, created_at) VALUES (?, ?, 0)", [COVER_HASH, COVER.length]);
  database.run("INSERT INTO book (title, cover_sha256, created_at, updated_at) VALUES ('kept', ?, 0, 0)", [
    COVER_HASH,
  ]);
  database.close();
  mkdirSync(join(work, "other-instance"));
  writeFileSync(otherSecretPath, OTHER_SECRET);
  const result = await runAdminCli(["backup", good], { DATA_DIR: dataDir });
  if (result.exitCode !== 0) throw new Error(`backup failed: ${result.stderr}`);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("restore refuses a backup it cannot trust, and writes nothing then", () => {
  test("the forge of issue 34: a cover's blob that is a link to another instance's jwt-secret", async () => {
    const forged = copyOfBackup();
    rmSync(blobPath(forged, COVER_HASH));
    symlinkSync(otherSecretPath, blobPath(forged, COVER_HASH));
    const { parent, dataDir } = restoreTarget();
    const result = await restore(forged, dataDir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`blobs/${COVER_HASH.slice(0, 2)}/${COVER_HASH} is a link`);
    expect(readdirSync(parent)).toEqual([]);
    expect(textsUnder(parent).some((text) => text.includes(OTHER_SECRET))).toBe(false);
  });

  test("a link anywhere else: the jwt-secret, the database, the manifest, the blob folders", async () => {
    const cases: [string, (backup: string) => void][] = [
      ["jwt-secret", (backup) => symlinkSync(otherSecretPath, join(backup, "jwt-secret"))],
      [
        "bookdist.sqlite",
        (backup) => symlinkSync(join(work, "live", "bookdist.sqlite"), join(backup, "bookdist.sqlite")),
      ],
      ["backup.json", (backup) => symlinkSync(join(good, "backup.json"), join(backup, "backup.json"))],
      ["blobs/", (backup) => symlinkSync(join(work, "live", "blobs"), join(backup, "blobs"))],
      [
        `blobs/${COVER_HASH.slice(0, 2)}`,
        (backup) =>
          symlinkSync(
            join(work, "live", "blobs", COVER_HASH.slice(0, 2)),
            join(backup, "blobs", COVER_HASH.slice(0, 2)),
          ),
      ],
    ];
    for (const [name, plant] of cases) {
      const backup = copyOfBackup();
      rmSync(join(backup, name), { recursive: true });
      plant(backup);
      await expectRefused(backup, new RegExp(`${name.replace(/[/.]/g, "\\$&")} is a link`));
    }
  });

  // Neither Bun nor Node makes a FIFO: coreutils' mkfifo does (absent from a bare machine's PATH).
  test.if(hasMkfifo)(
    "a FIFO in place of the jwt-secret is refused at once, not waited on",
    async () => {
      const backup = copyOfBackup();
      rmSync(join(backup, "jwt-secret"));
      const made = Bun.spawnSync(["mkfifo", join(backup, "jwt-secret")]);
      expect(made.exitCode).toBe(0);
      await expectRefused(backup, /jwt-secret is a FIFO/);
    },
    15_000,
  );

  test("a blob whose bytes are not the ones its name's sha256 says", async () => {
    const backup = copyOfBackup();
    writeFileSync(blobPath(backup, COVER_HASH), OTHER_SECRET);
    await expectRefused(backup, new RegExp(`${COVER_HASH} does not hold the bytes its name`));
  });

  test("a database that is not a sound SQLite file", async () => {
    const backup = copyOfBackup();
    const database = readFileSync(join(backup, "bookdist.sqlite"));
    // The header stays, the pages after it are overwritten: SQLite opens it, the check does not pass.
    database.fill(0x41, 100);
    writeFileSync(join(backup, "bookdist.sqlite"), database);
    await expectRefused(backup, /bookdist\.sqlite is not a sound SQLite database/);
  });

  test("a blob missing, or one more than the manifest counts", async () => {
    const missing = copyOfBackup();
    rmSync(blobPath(missing, ARCHIVE_HASH));
    await expectRefused(missing, /counts 2 blobs of \d+ bytes, but blobs\/ holds 1 of/);
    const extra = copyOfBackup();
    const planted = sha256(OTHER_SECRET);
    mkdirSync(join(extra, "blobs", planted.slice(0, 2)), { recursive: true });
    linkSync(otherSecretPath, blobPath(extra, planted));
    await expectRefused(extra, /counts 2 blobs of \d+ bytes, but blobs\/ holds 3 of/);
  });

  test("a manifest with an unknown, a missing or a mistyped field", async () => {
    const edits: [string, (manifest: Record<string, unknown>) => void, RegExp][] = [
      [
        "unknown",
        (manifest) => Object.assign(manifest, { restoreHook: "rm -rf /" }),
        /Unrecognized key.*restoreHook/,
      ],
      ["missing", (manifest) => delete manifest.database, /database: Invalid/],
      [
        "mistyped",
        (manifest) => Object.assign(manifest, { blobs: "2" }),
        /blobs: Invalid input: expected number/,
      ],
      ["mistyped", (manifest) => Object.assign(manifest, { createdAt: "yesterday" }), /createdAt: Invalid/],
    ];
    for (const [, edit, reason] of edits) {
      const backup = copyOfBackup();
      editManifest(backup, edit);
      await expectRefused(backup, new RegExp(`backup.json is not a backup manifest.*${reason.source}`));
    }
  });
});

describe("a failed restore leaves DATA_DIR as it was, so a retry works", () => {
  // The manifest says there is a jwt-secret; the file is gone: found only after the database and
  // the blobs were copied, which used to stay behind in DATA_DIR.
  for (const exists of [false, true])
    test(`DATA_DIR ${exists ? "an empty folder" : "not there"} before`, async () => {
      const broken = copyOfBackup();
      rmSync(join(broken, "jwt-secret"));
      const { parent, dataDir } = restoreTarget({ exists });
      const failed = await restore(broken, dataDir);
      expect(failed.exitCode).toBe(1);
      expect(readdirSync(parent)).toEqual(exists ? ["data"] : []);
      if (exists) expect(readdirSync(dataDir)).toEqual([]);
      expect(failed.stderr).toContain("the backup holds no jwt-secret");

      const retried = await restore(good, dataDir);
      expect(retried.exitCode, retried.stderr).toBe(0);
      expect(readdirSync(parent)).toEqual(["data"]);
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(readdirSync(dataDir).sort()).toEqual(["blobs", "bookdist.sqlite", "jwt-secret"]);
      expect(readFileSync(join(dataDir, "jwt-secret"), "utf8")).toBe(SECRET);
      expect(readFileSync(blobPath(dataDir, COVER_HASH), "utf8")).toBe(COVER);
      expect(readFileSync(blobPath(dataDir, ARCHIVE_HASH), "utf8")).toBe(ARCHIVE);
      const restored = new Database(join(dataDir, "bookdist.sqlite"), { readonly: true });
      expect(restored.query("SELECT title, cover_sha256 FROM book").all()).toEqual([
        { title: "kept", cover_sha256: COVER_HASH },
      ]);
      restored.close();
    });

  test("a database outside DATA_DIR (DATABASE_URL) is put in place together with DATA_DIR, or neither is", async () => {
    const broken = copyOfBackup();
    rmSync(join(broken, "jwt-secret"));
    const { parent, dataDir } = restoreTarget();
    const databaseFolder = join(work, `database-${++copies}`);
    const env = { DATA_DIR: dataDir, DATABASE_URL: `sqlite:${join(databaseFolder, "bookdist.sqlite")}` };
    const failed = await runAdminCli(["restore", broken], env);
    expect(failed.exitCode).toBe(1);
    expect(readdirSync(parent)).toEqual([]);
    expect(existsSync(databaseFolder) ? readdirSync(databaseFolder) : []).toEqual([]);

    const retried = await runAdminCli(["restore", good], env);
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(readdirSync(databaseFolder)).toEqual(["bookdist.sqlite"]);
    expect(readdirSync(dataDir).sort()).toEqual(["blobs", "jwt-secret"]);
    const restored = new Database(join(databaseFolder, "bookdist.sqlite"), { readonly: true });
    expect(restored.query("SELECT title FROM book").all()).toEqual([{ title: "kept" }]);
    restored.close();
  });
});

describe("what restore prints from a backup is escaped", () => {
  const ESCAPES = "\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e";

  test("an escape sequence in the manifest's version prints as visible text", async () => {
    const backup = copyOfBackup();
    editManifest(backup, (manifest) => Object.assign(manifest, { version: `1.0.0${ESCAPES}` }));
    const { dataDir } = restoreTarget();
    const result = await restore(backup, dataDir);
    expect(result.exitCode, result.stderr).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(result.stdout).toContain("(version 1.0.0\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{9b}31m\\u{202e})");
  });

  test("an escape sequence in an unknown key of the manifest, quoted by the refusal", async () => {
    const backup = copyOfBackup();
    editManifest(backup, (manifest) => Object.assign(manifest, { [`x${ESCAPES}`]: 1 }));
    const result = await expectRefused(backup, /Unrecognized key.*x\\u\{1b\}\]0;owned\\u\{7\}/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
  });
});

describe("backup writes only into a folder nobody else can write", () => {
  const dataDir = () => join(work, "live");

  test("a new backup folder is made 0700", async () => {
    const target = join(work, `new-backup-${++copies}`, "nested");
    const result = await runAdminCli(["backup", target], { DATA_DIR: dataDir() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(statSync(target).mode & 0o777).toBe(0o700);
  });

  test("an existing folder others can write (0777) is refused with one line, and nothing is written", async () => {
    const target = join(work, `open-backup-${++copies}`);
    mkdirSync(target);
    chmodSync(target, 0o777);
    const result = await runAdminCli(["backup", target], { DATA_DIR: dataDir() });
    expect(result.exitCode).toBe(1);
    expect(ourLines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain("can be written by others (mode 777)");
    expect(readdirSync(target)).toEqual([]);
    expect(statSync(target).mode & 0o777).toBe(0o777);
  });

  test("an existing empty folder of ours that others may read (0755) is made 0700", async () => {
    const target = join(work, `readable-backup-${++copies}`);
    mkdirSync(target);
    chmodSync(target, 0o755);
    const result = await runAdminCli(["backup", target], { DATA_DIR: dataDir() });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(statSync(target).mode & 0o777).toBe(0o700);
  });

  test("a link in place of the backup folder is refused", async () => {
    const real = join(work, `linked-backup-${++copies}`);
    mkdirSync(real, { mode: 0o700 });
    const target = `${real}-link`;
    symlinkSync(real, target);
    const result = await runAdminCli(["backup", target], { DATA_DIR: dataDir() });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("is a link: name the folder it points to");
    expect(readdirSync(real)).toEqual([]);
  });
});
