// A download's log line and bookdist_download_bytes_total over a real HTTP server (Bun.serve,
// wired as src/index.ts wires it), where Bun sends the archive itself by sendfile: written when
// the last byte went, with the bytes sent and the time to that byte, or, for a client that hangs
// up, when it hung up and marked `aborted`, counting no bytes it cannot know went.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import type { Server } from "bun";
import { timeRequest, timeResponse } from "../../src/http/connection-timeouts";
import { DELIVERY_TICK_MS, deliveriesInFlight } from "../../src/http/file-delivery";
import { createLogger } from "../../src/lib/logger";
import { registry } from "../../src/metrics/registry";
import { bookWithArchive, grantBook } from "../helpers/reading-books";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip } from "../helpers/zip";

/** Over Bun's 1 MiB sendfile threshold, and more than a socket's buffers hold. */
const ARCHIVE_BYTES = 24 * 1024 * 1024;

interface RequestLine {
  msg: string;
  path: string;
  status: number;
  bytes?: number;
  durationMs: number;
  client: string;
  incomplete?: boolean;
  aborted?: boolean;
}

async function downloadBytesTotal(): Promise<number> {
  const metric = await registry.getSingleMetric("bookdist_download_bytes_total")!.get();
  return metric.values[0]?.value ?? 0;
}

describe("a download's log line and byte count", () => {
  let t: TestApp;
  let server: Server<undefined>;
  let base: string;
  let token: string;
  let versionId: number;
  let size: number;
  const lines: string[] = [];
  const downloadLines = () =>
    lines
      .map((line) => JSON.parse(line) as RequestLine)
      .filter((e) => e.msg === "request" && e.path === `/bookversion/${versionId}/download`);

  async function lineWritten(count: number): Promise<RequestLine> {
    for (let waited = 0; waited < 10_000; waited += DELIVERY_TICK_MS) {
      if (downloadLines().length >= count) return downloadLines()[count - 1]!;
      await Bun.sleep(DELIVERY_TICK_MS);
    }
    throw new Error("no download line was logged");
  }

  beforeAll(async () => {
    t = await createTestApp({ logger: createLogger("info", (line) => lines.push(line)) });
    const reader = await t.user();
    token = reader.token;
    const random = new Uint8Array(ARCHIVE_BYTES);
    for (let at = 0; at < random.length; at += 65_536)
      crypto.getRandomValues(random.subarray(at, at + 65_536));
    const book = await bookWithArchive(t, "Sent to the end", makeZip({ "book.bin": random }));
    versionId = book.versionId;
    size = book.bytes.byteLength;
    await grantBook(t, book.bookId, reader.uuid);
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      development: false,
      fetch: async (request, listener) => {
        timeRequest(listener, request);
        return timeResponse(listener, request, await t.app.fetch(request, listener));
      },
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(async () => {
    await server.stop(true);
    await t.close();
  });

  test("a completed download: the whole size, logged after its last byte", async () => {
    const before = await downloadBytesTotal();
    const count = downloadLines().length + 1;
    const response = await fetch(`${base}/bookversion/${versionId}/download`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    // The first chunk is there, the transfer is not over: no line yet.
    await reader.read();
    await Bun.sleep(200);
    expect(downloadLines().length).toBe(count - 1);
    const readStarted = performance.now();
    let received = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      // A slow reader: the last byte goes at least ~150 ms after the headers.
      if (received < 8 * 1024 * 1024) await Bun.sleep(5);
    }
    const readMs = performance.now() - readStarted;
    const line = await lineWritten(count);
    // The peer as it was while the request ran (Bun forgets it at the end).
    expect(line).toMatchObject({ status: 200, bytes: size, client: "127.0.0.1" });
    expect(line.incomplete).toBeUndefined();
    expect(line.aborted).toBeUndefined();
    // Timed to the last byte, not to the headers: the 200 ms wait and the reading are in it.
    expect(line.durationMs).toBeGreaterThanOrEqual(200 + readMs * 0.5);
    expect((await downloadBytesTotal()) - before).toBe(size);
    expect(deliveriesInFlight()).toBe(0);
  });

  test("an aborted download: logged when the client hung up, marked aborted, no bytes claimed", async () => {
    const before = await downloadBytesTotal();
    const count = downloadLines().length + 1;
    // A client that reads the head and a little of the body, then hangs up.
    const socket = connect(server.port!, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    let got = 0;
    const someBody = new Promise<void>((resolve) =>
      socket.on("data", (chunk: Buffer) => {
        got += chunk.byteLength;
        if (got > 64 * 1024) {
          socket.pause();
          resolve();
        }
      }),
    );
    socket.write(
      `GET /bookversion/${versionId}/download HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    await someBody;
    await Bun.sleep(300);
    // Still in flight: the paused client holds it.
    expect(downloadLines().length).toBe(count - 1);
    socket.destroy();
    const line = await lineWritten(count);
    expect(line).toMatchObject({ status: 200, incomplete: true, aborted: true, client: "127.0.0.1" });
    // Bun tells no count of what sendfile sent before the client went: none is claimed.
    expect(line.bytes).toBeUndefined();
    expect(line.durationMs).toBeGreaterThanOrEqual(300);
    expect((await downloadBytesTotal()) - before).toBe(0);
    expect(deliveriesInFlight()).toBe(0);
  });
});
