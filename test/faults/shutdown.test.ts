// The real server stopping, and clients that send their bodies slowly or not at all:
// - SIGTERM while a client trickles a login body (one byte a second, for ever): in-flight work
//   still finishes within SHUTDOWN_GRACE, then what is left is closed and the process exits 0;
// - a JSON body that stalls is cut off after a short timeout, while an upload that stalls for as
//   long carries on and succeeds (slow phones).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHORT_IDLE_SECONDS } from "../../src/http/connection-timeouts";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { openSocket, parseRawResponse } from "../helpers/raw-http";
import { type SpawnedServer, spawnServer } from "../helpers/spawn-server";
import { makeZip } from "../helpers/zip";

const ADMIN = "shutdown-admin@example.com";
const PASSWORD = "correct horse battery staple";
const GRACE_MS = 3000;

const loginBody = JSON.stringify({ email: ADMIN, password: PASSWORD });
const loginHead = (length: number) =>
  `POST /authentication/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** The admin's token: registered on the first server of this data folder, logged in after. */
async function adminToken(server: SpawnedServer, dataDir: string): Promise<string> {
  const post = (path: string) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: loginBody,
    });
  let response = await post("/authentication/register");
  if (response.status === 409) response = await post("/authentication/login");
  else await grantAdminWithCli(ADMIN, { DATA_DIR: dataDir });
  expect(response.status).toBeLessThan(300);
  return ((await response.json()) as { token: string }).token;
}

describe("shutdown with slow clients", () => {
  let dataDir: string;
  let server: SpawnedServer | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-shutdown-"));
  });
  afterAll(async () => {
    server?.kill("SIGKILL");
    await server?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("SIGTERM: a request in flight finishes, a trickling client is cut off at SHUTDOWN_GRACE, exit 0", async () => {
    server = await spawnServer({
      dataDir,
      env: { SHUTDOWN_GRACE: `${GRACE_MS}ms` },
    });
    await adminToken(server, dataDir);

    // A body that never ends: one byte a second of a body announced far longer.
    const trickler = await openSocket(server.port);
    trickler.socket.write(loginHead(10_000));
    const trickle = setInterval(() => trickler.socket.write(" "), 1000);
    // A login whose body arrives in two halves, the second 1.5 s after SIGTERM: in flight, it
    // must get its answer within the grace.
    const inFlight = await openSocket(server.port);
    inFlight.socket.write(loginHead(loginBody.length) + loginBody.slice(0, 10));
    await Bun.sleep(1500);

    const exited = server.exited.then((code) => ({ code, at: Date.now() }));
    const termAt = Date.now();
    server.kill("SIGTERM");
    await Bun.sleep(1500);
    inFlight.socket.write(loginBody.slice(10));
    await inFlight.closed.catch(() => {});
    const exit = await Promise.race([exited, Bun.sleep(GRACE_MS + 5000).then(() => null)]);
    clearInterval(trickle);
    const trickleClosedAt = await Promise.race([trickler.closed, Bun.sleep(1000).then(() => null)]);
    trickler.socket.destroy();
    if (!exit) server.kill("SIGKILL");
    console.log(
      `shutdown: exited ${exit ? exit.at - termAt : "never"} ms after SIGTERM (grace ${GRACE_MS} ms), trickling client closed ${trickleClosedAt ? trickleClosedAt - termAt : "never"} ms after it`,
    );

    const answered = parseRawResponse(inFlight.received());
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body).token).toBeString();
    expect(exit).not.toBeNull();
    expect(exit!.code).toBe(0);
    expect(exit!.at - termAt).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(exit!.at - termAt).toBeLessThan(GRACE_MS + 5000);
    expect(trickleClosedAt).not.toBeNull();
    expect(server.output()).toContain("shutdown grace over");
    expect(server.output()).toContain('"msg":"stopped"');
    expect(server.output()).not.toContain('"level":"error"');
    server = undefined;
  }, 30_000);

  test("stalled headers and a stalled JSON body are cut off after a short timeout; an upload stalled as long succeeds", async () => {
    server = await spawnServer({ dataDir });
    const token = await adminToken(server, dataDir);
    const api = async (path: string, json: unknown) => {
      const response = await fetch(`${server!.url}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(json),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as { id: number };
    };
    const book = await api("/book", { title: "Slow networks" });
    const version = await api("/bookversion", { bookId: book.id, versionCode: 1, versionName: "1.0" });

    const boundary = "stall-boundary";
    const zip = makeZip({ "book/index.html": "<h1>Slow</h1>", "book/filler.bin": new Uint8Array(64 * 1024) });
    const multipart = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.zip"\r\nContent-Type: application/zip\r\n\r\n`,
      ),
      zip,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const upload = await openSocket(server.port);
    upload.socket.write(
      `POST /bookversion/${version.id}/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${multipart.length}\r\nConnection: close\r\n\r\n`,
    );
    upload.socket.write(multipart.subarray(0, 1000));
    const stalled = await openSocket(server.port);
    stalled.socket.write(loginHead(loginBody.length) + loginBody.slice(0, 10));
    // Headers that stop half-way (slowloris) are held to the same short timeout.
    const slowHeaders = await openSocket(server.port);
    slowHeaders.socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    const stalledAt = Date.now();

    // Both stall well past the short timeout (Bun checks timeouts every few seconds).
    const stall = (SHORT_IDLE_SECONDS + 6) * 1000;
    const cutAt = await Promise.race([stalled.closed, Bun.sleep(stall).then(() => null)]);
    expect(cutAt).not.toBeNull();
    expect(cutAt! - stalledAt).toBeGreaterThanOrEqual(SHORT_IDLE_SECONDS * 1000 - 500);
    const headersCutAt = await Promise.race([slowHeaders.closed, Bun.sleep(stall).then(() => null)]);
    expect(headersCutAt).not.toBeNull();
    await Bun.sleep(Math.max(0, stalledAt + stall - Date.now()));

    upload.socket.write(multipart.subarray(1000));
    await upload.closed;
    const answer = parseRawResponse(upload.received());
    console.log(
      `stalled JSON body cut after ${cutAt! - stalledAt} ms, stalled headers after ${headersCutAt! - stalledAt} ms; upload resumed after ${stall} ms answered ${answer.status}`,
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).archive.size).toBe(zip.length);
  }, 60_000);
});
