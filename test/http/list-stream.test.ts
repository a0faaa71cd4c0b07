// A streamed list over a real HTTP server (Bun.serve, wired as src/index.ts wires it): several
// body chunks, the long connection timeout, a client that hangs up, and a failure after the
// headers went out (a truncated body and one log line without SQL, never a short list).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { SQL } from "bun";
import { openListSnapshots } from "../../src/db/list-snapshot";
import { withTransaction } from "../../src/db/transaction";
import { LONG_IDLE_SECONDS, timeRequest, timeResponse } from "../../src/http/connection-timeouts";
import { isStreamedList, listBody } from "../../src/http/list-stream";
import { createLogger } from "../../src/lib/logger";
import { LIST_CHUNK } from "../../src/services/page";
import { onlyIn } from "../helpers/requires";
import { createTestApp, type TestApp } from "../helpers/test-app";

const CODES = LIST_CHUNK * 3 + 10;

/** Resolves once `check` holds, or fails after `ms` (generous: this is about release, not speed). */
async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}

describe("a streamed list over a real server", () => {
  let t: TestApp;
  let server: Server<undefined>;
  let admin: { token: string };
  const lines: string[] = [];
  let base: string;

  beforeAll(async () => {
    t = await createTestApp({ logger: createLogger("error", (line) => lines.push(line)) });
    admin = await t.admin();
    const book = await t.call("POST", "/book", { token: admin.token, json: { title: "Codes" } });
    expect(book.status).toBe(201);
    const now = new Date("2026-01-01T00:00:00.000Z");
    const codes = Array.from({ length: CODES }, (_, i) => ({
      bookId: 1,
      code: `CODE${String(i).padStart(8, "0")}`,
      enabled: true,
      maxActivations: 1,
      activationCount: 0,
      createdAt: now,
      updatedAt: now,
    }));
    await withTransaction(t.deps.db, async (tx) => {
      for (let at = 0; at < CODES; at += 500)
        await tx.orm.insert(tx.tables.activationQrCode).values(codes.slice(at, at + 500));
    });
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

  const headers = () => ({ Authorization: `Bearer ${admin.token}` });

  test("arrives in several body chunks, chunked, the whole array with X-Total-Count", async () => {
    const response = await fetch(`${base}/activation-qr-code`, { headers: headers() });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe(String(CODES));
    expect(response.headers.get("transfer-encoding")).toBe("chunked");
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let pieces = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pieces += 1;
      text += decoder.decode(value, { stream: true });
    }
    expect(pieces).toBeGreaterThan(1);
    const codes = JSON.parse(text) as { id: number }[];
    expect(codes).toHaveLength(CODES);
    expect(codes.map((code) => code.id)).toEqual(Array.from({ length: CODES }, (_, i) => i + 1));
    await eventually(() => openListSnapshots(t.deps.db) === 0);
  });

  test("keeps the long connection timeout, where a JSON answer gets the short one", async () => {
    const set: number[] = [];
    const recorder = { timeout: (_request: Request, seconds: number) => void set.push(seconds) };
    const request = new Request(`${base}/activation-qr-code`, { headers: headers() });
    const response = await t.app.fetch(request, recorder);
    expect(isStreamedList(response)).toBe(true);
    timeResponse(recorder, request, response);
    expect(set.filter((seconds) => seconds !== LONG_IDLE_SECONDS)).toEqual([]);
    await response.body!.cancel();
    const small = await t.app.fetch(new Request(`${base}/book`, { headers: headers() }), recorder);
    expect(isStreamedList(small)).toBe(false);
  });

  test("a client that hangs up mid-stream ends its snapshot; the next stream runs", async () => {
    const abort = new AbortController();
    const response = await fetch(`${base}/activation-qr-code`, { headers: headers(), signal: abort.signal });
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.read().catch(() => undefined);
    await eventually(() => openListSnapshots(t.deps.db) === 0);
    if (t.database.dialect === "postgres") {
      const sql = new SQL(t.database.url);
      try {
        await eventually(async () => {
          const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
          return row.n === 0;
        });
      } finally {
        await sql.close();
      }
    }
    const next = await fetch(`${base}/activation-qr-code`, { headers: headers() });
    expect((await next.json()) as unknown[]).toHaveLength(CODES);
  });

  test("a failure after the headers truncates the body and closes the stream once", async () => {
    let closed = 0;
    const failures: unknown[] = [];
    async function* chunks() {
      yield [{ id: 1 }];
      // Long enough for the status line and the first chunk to be on their way.
      await Bun.sleep(100);
      throw new Error("the database went away");
    }
    const failing = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response(
          listBody(
            {
              total: 2,
              chunks: chunks(),
              close: async () => {
                closed += 1;
              },
            },
            "[",
            "]",
            (row) => row,
            (error) => failures.push(error),
          ),
        ),
    });
    try {
      const response = await fetch(`http://127.0.0.1:${failing.port}/`);
      expect(response.status).toBe(200);
      // Never a well-formed short list: reading the body fails.
      await expect(response.text()).rejects.toThrow();
      await eventually(() => failures.length === 1);
      expect(closed).toBeGreaterThanOrEqual(1);
    } finally {
      await failing.stop(true);
    }
  });

  test.if(
    onlyIn(
      process.env.TEST_DATABASE_URL !== undefined,
      "a Postgres snapshot connection lost mid-stream: runs with TEST_DATABASE_URL",
    ),
  )(
    "Postgres: a snapshot connection lost mid-stream aborts the body and logs one line without SQL",
    async () => {
      lines.length = 0;
      const response = await t.call("GET", "/activation-qr-code", { token: admin.token });
      const reader = response.body!.getReader();
      await reader.read();
      const sql = new SQL(t.database.url);
      try {
        await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
      } finally {
        await sql.close();
      }
      let failed = false;
      try {
        for (;;) if ((await reader.read()).done) break;
      } catch {
        failed = true;
      }
      expect(failed).toBe(true);
      const logged = lines.filter((line) => line.includes("list stream failed"));
      expect(logged).toHaveLength(1);
      expect(logged[0]!.toLowerCase()).not.toContain("select");
      await eventually(() => openListSnapshots(t.deps.db) === 0);
    },
  );
});
