// X-Request-Id of the real server (README "Configuration", TRUSTED_PROXIES): a sane incoming id
// is echoed, and carried by the log, only when a trusted proxy sent it; from anyone else the
// server makes its own and logs the client's beside it as clientRequestId.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { startsRealServer } from "../helpers/requires";

interface RequestLine {
  msg: string;
  requestId: string;
  clientRequestId?: string;
  path: string;
}

/** Sends `GET /health` with the id and answers the echoed header and the request's log line. */
async function roundTrip(server: RealServer, sent: string): Promise<{ echoed: string; line: RequestLine }> {
  const response = await fetch(`${server.url}/health`, { headers: { "X-Request-Id": sent } });
  await response.arrayBuffer();
  const echoed = response.headers.get("x-request-id") ?? "";
  // The line is written when the body's last byte went; give the pipe a moment.
  for (let i = 0; i < 50; i++) {
    const line = server
      .output()
      .filter((text) => text.startsWith("{"))
      .map((text) => JSON.parse(text) as RequestLine)
      .find((entry) => entry.msg === "request" && entry.requestId === echoed);
    if (line) return { echoed, line };
    await Bun.sleep(20);
  }
  throw new Error(`no request line for ${echoed}`);
}

const realServer = startsRealServer();

describe.if(realServer)("a peer in TRUSTED_PROXIES", () => {
  let server: RealServer;
  beforeAll(async () => {
    server = await startRealServer({ env: { TRUSTED_PROXIES: "127.0.0.1" } });
  });
  afterAll(() => server?.stop());

  test("has its sane id echoed and logged as the request id", async () => {
    const sent = `proxy-${crypto.randomUUID()}`;
    const { echoed, line } = await roundTrip(server, sent);
    expect(echoed).toBe(sent);
    expect(line.requestId).toBe(sent);
    expect(line.clientRequestId).toBeUndefined();
  });

  test("an insane id is replaced, even from a trusted proxy", async () => {
    const { echoed, line } = await roundTrip(server, "<script>");
    expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
    expect(line.clientRequestId).toBeUndefined();
  });
});

for (const [what, env] of [
  ["no TRUSTED_PROXIES", {}],
  ["a peer outside TRUSTED_PROXIES", { TRUSTED_PROXIES: "10.0.0.0/8, ::1" }],
] as const) {
  describe.if(realServer)(what, () => {
    let server: RealServer;
    beforeAll(async () => {
      server = await startRealServer({ env });
    });
    afterAll(() => server?.stop());

    test("gets the server's own id; the client's is logged as clientRequestId", async () => {
      const sent = `client-${crypto.randomUUID()}`;
      const first = await roundTrip(server, sent);
      expect(first.echoed).not.toBe(sent);
      expect(first.echoed).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.line.clientRequestId).toBe(sent);
      // Two requests with one client id are still told apart in the log.
      const second = await roundTrip(server, sent);
      expect(second.echoed).not.toBe(first.echoed);
      expect(second.line.clientRequestId).toBe(sent);
    });

    test("an insane client id is neither echoed nor logged", async () => {
      const { echoed, line } = await roundTrip(server, "a b\u00e9");
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
      expect(line.clientRequestId).toBeUndefined();
    });
  });
}
