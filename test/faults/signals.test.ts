// The real server on a private Postgres, killed and stopped mid-transfer:
// - SIGKILL while a large archive is still streaming up → after a restart no temp file or blob of
//   it is left under DATA_DIR and the version still has no archive;
// - SIGTERM while a large file is being read slowly → the download completes, byte for byte, and
//   only then does the server exit (cleanly).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { type PostgresInstance, requirePostgresServer, startPostgres } from "../helpers/postgres-instance";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";
import { makeZip } from "../helpers/zip";

const ADMIN = "signals-admin@example.com";
const PASSWORD = "correct horse battery staple";

let pg: PostgresInstance;
let dataDir: string;
let server: SpawnedServer | undefined;
let token: string;
let bookId: number;

const env = () => ({ DATABASE_URL: pg.url });
const blobRoot = () => join(dataDir, "blobs");

async function api(method: string, path: string, json?: unknown): Promise<Response> {
  return fetch(`${server!.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(json ? { "Content-Type": "application/json" } : {}) },
    body: json ? JSON.stringify(json) : undefined,
  });
}

async function created(method: string, path: string, json: unknown): Promise<any> {
  const response = await api(method, path, json);
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Published blobs: files in the two-hex shard folders. */
function publishedBlobs(): string[] {
  return readdirSync(blobRoot())
    .filter((name) => /^[0-9a-f]{2}$/.test(name))
    .flatMap((shard) => readdirSync(join(blobRoot(), shard)));
}
const tempFiles = () => readdirSync(join(blobRoot(), "tmp"));

async function killServer(): Promise<void> {
  server?.kill("SIGKILL");
  await server?.exited;
  server = undefined;
}

describe.if(requirePostgresServer())("signals mid-transfer", () => {
  beforeAll(async () => {
    pg = await startPostgres();
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-signals-"));
    server = await spawnServer({ dataDir, env: env() });
    const registered = await fetch(`${server.url}/authentication/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: ADMIN, password: PASSWORD }),
    });
    expect(registered.status).toBe(201);
    token = ((await registered.json()) as { token: string }).token;
    await grantAdminWithCli(ADMIN, { DATA_DIR: dataDir, DATABASE_URL: pg.url });
    bookId = (await created("POST", "/book", { title: "Signals" })).id;
  }, 60_000);

  afterAll(async () => {
    await killServer();
    await pg?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("SIGKILL during a slow upload leaves no partial blob and no archive after a restart", async () => {
    const version = await created("POST", "/bookversion", { bookId, versionCode: 1, versionName: "1.0" });
    const boundary = "signals-boundary";
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`,
    );
    const chunk = new Uint8Array(256 * 1024).fill(0x5a);
    let sent = 0;
    // A zip that never finishes arriving: 256 KiB every 20 ms until the server dies.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      async pull(controller) {
        await Bun.sleep(20);
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const upload = fetch(`${server!.url}/bookversion/${version.id}/upload`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${token}`,
        "Content-Type": `multipart/form-data; boundary=${boundary}`,
      },
      body,
    }).then(
      (response) => `answered ${response.status}`,
      () => "cut off",
    );

    // Wait until the server is well into writing its temp file.
    const deadline = Date.now() + 20_000;
    let partial = 0;
    while (Date.now() < deadline) {
      const names = tempFiles();
      partial = names.length ? statSync(join(blobRoot(), "tmp", names[0]!)).size : 0;
      if (partial >= 4 * 1024 * 1024) break;
      await Bun.sleep(50);
    }
    expect(partial).toBeGreaterThanOrEqual(4 * 1024 * 1024);
    await killServer();
    expect(await upload).toBe("cut off");
    expect(sent).toBeGreaterThanOrEqual(partial);

    // What the kill left: the temp file of a dead upload, no published blob.
    const left = tempFiles();
    expect(left).toHaveLength(1);
    expect(publishedBlobs()).toEqual([]);
    // Its lease runs out: nothing touches it any more (here: as if minutes had passed).
    const longAgo = new Date(Date.now() - 10 * 60_000);
    utimesSync(join(blobRoot(), "tmp", left[0]!), longAgo, longAgo);
    // A temp file whose lease is alive (another instance's upload in flight) stays.
    const live = `${crypto.randomUUID()}.${crypto.randomUUID()}.part`;
    mkdirSync(join(blobRoot(), "tmp"), { recursive: true });
    writeFileSync(join(blobRoot(), "tmp", live), "in flight elsewhere");

    server = await spawnServer({ dataDir, env: env() });
    expect(tempFiles()).toEqual([live]);
    expect(publishedBlobs()).toEqual([]);
    expect(server.output()).toContain("removed temp files of interrupted uploads");
    const after = await api("GET", `/bookversion/${version.id}`);
    expect(after.status).toBe(200);
    expect(((await after.json()) as { archive: unknown }).archive).toBeNull();
    rmSync(join(blobRoot(), "tmp", live));
  }, 60_000);

  test("SIGTERM during a slow download: the download completes with the right bytes, then the server exits", async () => {
    server ??= await spawnServer({ dataDir, env: env() });
    const version = await created("POST", "/bookversion", { bookId, versionCode: 2, versionName: "2.0" });
    const content = new Uint8Array(64 * 1024 * 1024);
    for (let i = 0; i < content.length; i += 4096) content[i] = (i / 4096) & 0xff;
    const zip = makeZip({ "book/content.bin": content, "book/index.html": "<h1>Signals</h1>" });
    const expected = new Bun.CryptoHasher("sha256").update(zip).digest("hex");
    const form = new FormData();
    form.append("file", new Blob([zip], { type: "application/zip" }), "big.zip");
    const uploaded = await fetch(`${server.url}/bookversion/${version.id}/upload`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
      body: form,
    });
    expect(uploaded.status).toBe(200);
    expect(((await uploaded.json()) as { archive: { sha256: string } }).archive.sha256).toBe(expected);

    // A raw socket, so that reading slowly really holds the server back (TCP backpressure).
    const socket = connect(server.port, "127.0.0.1");
    socket.write(
      `GET /bookversion/${version.id}/download HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
    );
    const hasher = new Bun.CryptoHasher("sha256");
    let header = "";
    let headerDone = false;
    let bodyBytes = 0;
    let sentTerm = false;
    let termAt = 0;
    const exitedAt = server.exited.then((code) => ({ code, at: Date.now(), received: bodyBytes }));
    const done = new Promise<number>((resolve, reject) => {
      socket.on("data", (data: Buffer) => {
        let rest = data;
        if (!headerDone) {
          header += data.toString("latin1");
          const end = header.indexOf("\r\n\r\n");
          if (end < 0) return;
          headerDone = true;
          rest = data.subarray(data.length - (header.length - end - 4));
          header = header.slice(0, end);
        }
        bodyBytes += rest.length;
        hasher.update(rest);
        if (!sentTerm && bodyBytes >= 2 * 1024 * 1024) {
          sentTerm = true;
          termAt = Date.now();
          server!.kill("SIGTERM");
        }
        // About 16 MiB/s: the file takes seconds, nearly all of them after SIGTERM.
        socket.pause();
        setTimeout(() => socket.resume(), rest.length / 16_384);
      });
      socket.on("end", () => resolve(Date.now()));
      socket.on("error", reject);
    });
    const finishedAt = await done;
    expect(header).toMatch(/^HTTP\/1\.1 200/);
    const length = Number(/content-length:\s*(\d+)/i.exec(header)?.[1]);
    expect(length).toBe(zip.length);
    expect(sentTerm).toBe(true);
    expect(bodyBytes).toBe(zip.length);
    expect(hasher.digest("hex")).toBe(expected);

    const exit = await exitedAt;
    console.log(
      `download: ${zip.length} bytes, SIGTERM after ${2 * 1024 * 1024}, server exited ${exit.at - termAt} ms later with ${exit.received} received, download ended ${finishedAt - termAt} ms after SIGTERM`,
    );
    expect(exit.code).toBe(0);
    // Only kernel socket buffers may separate the server's exit from the download's end: it kept
    // sending for most of the file after SIGTERM instead of cutting the download off.
    expect(exit.received).toBeGreaterThan(zip.length / 2);
    expect(server.output()).toContain("stopped");
    server = undefined;
  }, 90_000);
});
