// README "Moving to Postgres", as an operator does it: a real server on SQLite with a book, a
// cover, an archive, a code redeemed and sessions; stopped; `bun run db copy --to <postgres url>`;
// the real server started on that Postgres database with the same DATA_DIR and JWT secret. Every
// token given out before still works, and the book, its files and the activation are all there.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import QRCode from "qrcode";
import { adminWithBook } from "../helpers/admin-cli";
import { childEnv } from "../helpers/child-env";
import { projectRoot, type RealServer, startRealServer } from "../helpers/real-server";
import { onlyIn, startsRealServer } from "../helpers/requires";
import { makeZip, multipartFile } from "../helpers/zip";

const serverUrl = process.env.TEST_DATABASE_URL;
const PASSWORD = "moving to postgres 123";

const sha256 = (bytes: ArrayBuffer | Uint8Array) =>
  new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

async function call(server: RealServer, method: string, path: string, token?: string, body?: unknown) {
  return fetch(`${server.url}${path}`, {
    method,
    headers: {
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body === undefined || body instanceof FormData ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
}

interface DailyCount {
  day: string;
  metric: string;
  n: number;
}

/** The dashboard's counts by day and metric (summed over the slots), read from the SQLite file. */
function dailyCountsOf(path: string): DailyCount[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .query<DailyCount, []>(
        "SELECT day, metric, sum(n) AS n FROM daily_count GROUP BY day, metric ORDER BY day, metric",
      )
      .all();
  } finally {
    db.close();
  }
}

interface Reader {
  user_uuid: string;
  day: string;
}

/** Each reader's last active day (the dashboard's active readers), read from the SQLite file. */
function readersOf(path: string): Reader[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<Reader, []>("SELECT user_uuid, day FROM reader_activity ORDER BY user_uuid").all();
  } finally {
    db.close();
  }
}

async function json(response: Response): Promise<Record<string, unknown>> {
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

describe.if(
  startsRealServer() &&
    onlyIn(serverUrl !== undefined, "TEST_DATABASE_URL is not set: the copy needs a Postgres server"),
)("a SQLite deployment moved to Postgres with bun run db copy", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "bookdist-move-"));
  const name = `bookdist_move_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  let admin: SQL;
  let targetUrl: string;
  let moved: RealServer | undefined;
  let copyOutput = { exitCode: -1, stderr: "" };
  const sqlitePath = join(dataDir, "bookdist.sqlite");
  let sourceCounts: DailyCount[] = [];
  let sourceReaders: Reader[] = [];
  let copiedReaders: Reader[] = [];
  let copiedCounts: DailyCount[] = [];
  const before = {
    adminToken: "",
    readerToken: "",
    loginToken: "",
    bookId: 0,
    versionId: 0,
    cover: "",
    archive: "",
    code: "",
  };

  beforeAll(async () => {
    admin = new SQL(serverUrl!);
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    targetUrl = url.toString();

    // The default: no DATABASE_URL, the SQLite file in DATA_DIR.
    const onSqlite = await startRealServer({ env: { DATA_DIR: dataDir, DATABASE_URL: "" } });
    try {
      const owner = await adminWithBook(
        onSqlite,
        { DATA_DIR: dataDir },
        {
          email: "mover@example.com",
          password: PASSWORD,
          bookTitle: "Moved along",
        },
      );
      before.adminToken = owner.token;
      before.bookId = owner.bookId;
      const cover = new Uint8Array(await QRCode.toBuffer("moved cover", { width: 160 }));
      before.cover = sha256(cover);
      await json(
        await call(
          onSqlite,
          "POST",
          `/book/${owner.bookId}/cover`,
          owner.token,
          multipartFile(cover, { filename: "c.png" }),
        ),
      );
      const version = await json(
        await call(onSqlite, "POST", "/bookversion", owner.token, {
          bookId: owner.bookId,
          versionCode: 1,
          versionName: "1.0",
        }),
      );
      before.versionId = version.id as number;
      const archive = makeZip({ "book.html": "<p>moved</p>" });
      before.archive = sha256(archive);
      await json(
        await call(
          onSqlite,
          "POST",
          `/bookversion/${version.id}/upload`,
          owner.token,
          multipartFile(archive, { filename: "m.zip" }),
        ),
      );
      const code = await json(
        await call(onSqlite, "POST", "/activation-qr-code", owner.token, { bookId: owner.bookId }),
      );
      before.code = code.code as string;
      const reader = await json(
        await call(onSqlite, "POST", "/authentication/register", undefined, {
          email: "reader@example.com",
          password: PASSWORD,
        }),
      );
      before.readerToken = reader.token as string;
      await json(
        await call(onSqlite, "POST", "/activation/by-qr-code", before.readerToken, { code: before.code }),
      );
      // A reader who signed in and out: no session of theirs is left to copy, yet they stay an
      // active reader of today (reader_activity), which a rebuild from the sessions would lose.
      const away = await json(
        await call(onSqlite, "POST", "/authentication/register", undefined, {
          email: "away@example.com",
          password: PASSWORD,
        }),
      );
      await json(await call(onSqlite, "POST", "/authentication/logout", away.token as string, {}));
      // A download, counted by the app (not by a trigger) on the dashboard's daily_count.
      const download = await call(
        onSqlite,
        "GET",
        `/bookversion/${before.versionId}/download`,
        before.readerToken,
      );
      expect(download.status).toBe(200);
      await download.arrayBuffer();
      for (let i = 0; i < 100 && !dailyCountsOf(sqlitePath).some((c) => c.metric === "download"); i++)
        await Bun.sleep(20);
      const login = await json(
        await call(onSqlite, "POST", "/authentication/login", undefined, {
          email: "mover@example.com",
          password: PASSWORD,
        }),
      );
      before.loginToken = login.token as string;
    } finally {
      // Keeps DATA_DIR (ours, not the helper's): only the server's own temp folder goes.
      await onSqlite.stop();
    }
    sourceCounts = dailyCountsOf(sqlitePath);
    sourceReaders = readersOf(sqlitePath);

    // A password in the URL (the test server trusts local connections and ignores it): never printed.
    const withPassword = new URL(targetUrl);
    withPassword.password = "never-printed-pw";
    const child = Bun.spawn(["bun", "run", "db", "copy", "--to", withPassword.toString()], {
      cwd: projectRoot,
      env: childEnv({ DATA_DIR: dataDir }),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stderr, exitCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    copyOutput = { exitCode, stderr };
    if (exitCode !== 0) throw new Error(`bun run db copy: ${exitCode}\n${stderr}`);

    // Read before the server starts on it: its own downloads would count too.
    const target = new SQL(targetUrl);
    try {
      copiedCounts = (
        await target<DailyCount[]>`SELECT day, metric, sum(n)::int AS n FROM daily_count GROUP BY day, metric`
      ).map((row) => ({ ...row }));
      copiedReaders = (
        await target<Reader[]>`SELECT user_uuid, day FROM reader_activity ORDER BY user_uuid`
      ).map((row) => ({ ...row }));
    } finally {
      await target.close();
    }

    moved = await startRealServer({ env: { DATA_DIR: dataDir, DATABASE_URL: targetUrl } });
  }, 120_000);

  afterAll(async () => {
    await moved?.stop();
    await admin?.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("the copy says what it touches, shows its progress and verifies", () => {
    const lines = copyOutput.stderr.trim().split("\n");
    expect(lines[0]).toStartWith("bookdist db copy: from database: SQLite ");
    expect(lines[0]).toContain(join(dataDir, "bookdist.sqlite"));
    expect(lines[0]).toContain(":***@");
    expect(copyOutput.stderr).not.toContain("never-printed-pw");
    expect(lines).toContain("copying book: 1/1 rows");
    expect(copyOutput.stderr).toMatch(/verified: 26 tables, \d+ rows, row counts equal to the source/);
  });

  test("every token given out on SQLite still works on Postgres", async () => {
    for (const token of [before.adminToken, before.readerToken, before.loginToken])
      expect((await call(moved!, "GET", "/authentication/me", token)).status).toBe(200);
  });

  test("the book, its cover and archive, and the reader's activation are there", async () => {
    const book = await json(await call(moved!, "GET", `/book/${before.bookId}`, before.adminToken));
    expect(book.title).toBe("Moved along");
    const cover = await call(moved!, "GET", `/book/${before.bookId}/cover`);
    expect(cover.status).toBe(200);
    expect(sha256(await cover.arrayBuffer())).toBe(before.cover);
    // The reader may download only through the activation the code made on SQLite.
    const archive = await call(
      moved!,
      "GET",
      `/bookversion/${before.versionId}/download`,
      before.readerToken,
    );
    expect(archive.status).toBe(200);
    expect(sha256(await archive.arrayBuffer())).toBe(before.archive);
    const activations = await call(moved!, "GET", `/activation?bookId=${before.bookId}`, before.adminToken);
    expect(activations.status).toBe(200);
    expect(await activations.text()).toContain(`"bookId":${before.bookId}`);
  });

  test("the dashboard's daily counts are the source's: downloads kept, activations not counted twice", () => {
    const today = new Date().toISOString().slice(0, 10);
    expect(sourceCounts).toContainEqual({ day: today, metric: "download", n: 1 });
    expect(sourceCounts).toContainEqual({ day: today, metric: "activation.code", n: 1 });
    const key = (c: DailyCount) => `${c.day} ${c.metric}`;
    const sorted = (counts: DailyCount[]) =>
      [...counts].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    expect(sorted(copiedCounts)).toEqual(sorted(sourceCounts));
  });

  test("each reader's last active day is the source's, a reader with no session left included", () => {
    // register ×3 (mover, reader, away) and the owner: every one of them signed in today.
    expect(sourceReaders.length).toBeGreaterThanOrEqual(3);
    expect(copiedReaders).toEqual(sourceReaders);
  });

  test("new rows get new ids after the copied ones", async () => {
    const book = await json(
      await call(moved!, "POST", "/book", before.adminToken, { title: "After the move" }),
    );
    expect(book.id).toBe(before.bookId + 1);
  });
});
