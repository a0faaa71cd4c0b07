// Strangers holding sockets: anonymous requests that announce a large body, are answered before
// it is read (401 on an upload route, 404 elsewhere) and then trickle a byte every few seconds.
// Each socket must be closed by the server soon, whatever the trickle: none may be held for
// the long timeout that slow downloads and authorized uploads get.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openSocket } from "../helpers/raw-http";
import { type RealServer, startRealServer } from "../helpers/real-server";

/** What the issue asks for: 1,000 sockets, as the open-file limit of both processes allows. */
function socketCount(): number {
  const limit = Number(Bun.spawnSync(["sh", "-c", "ulimit -n"]).stdout.toString().trim());
  return Number.isFinite(limit) ? Math.max(100, Math.min(1000, limit - 200)) : 1000;
}

const CLOSED_WITHIN_MS = 15_000;
const TRICKLE_EVERY_MS = 3000;

const head = (target: string) =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 50000000\r\n\r\n--b\r\n`;

describe("anonymous clients trickling bodies nobody reads", () => {
  let server: RealServer;
  beforeAll(async () => {
    server = await startRealServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  test(`every socket is closed by the server within ${CLOSED_WITHIN_MS / 1000} s`, async () => {
    const port = Number(new URL(server.url).port);
    const count = socketCount();
    const targets = ["/book/1/cover", "/nothing"];
    const sockets: Awaited<ReturnType<typeof openSocket>>[] = [];
    // In batches, so the listen backlog is never what refuses a connection.
    for (let i = 0; i < count; i += 100) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, () => openSocket(port)),
      );
      for (const socket of batch) {
        socket.socket.write(head(targets[sockets.length % 2]!));
        sockets.push(socket);
      }
    }
    const sentAt = Date.now();
    let closed = 0;
    for (const socket of sockets) void socket.closed.then(() => closed++);
    const trickle = setInterval(() => {
      for (const { socket } of sockets) if (!socket.destroyed) socket.write("x");
    }, TRICKLE_EVERY_MS);
    while (closed < count && Date.now() - sentAt < CLOSED_WITHIN_MS) await Bun.sleep(250);
    clearInterval(trickle);
    const tookMs = Date.now() - sentAt;
    const open = count - closed;
    for (const { socket } of sockets) socket.destroy();
    console.log(`trickling sockets: ${open} of ${count} still open after ${tookMs} ms`);

    expect(open).toBe(0);
    // Each was answered before it was closed: the 401 of the upload route, the 404 elsewhere.
    const statuses = new Set(sockets.map((socket) => socket.received().slice(0, 12)));
    expect([...statuses].sort()).toEqual(["HTTP/1.1 401", "HTTP/1.1 404"]);
    // The server itself is fine.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  }, 60_000);
});
