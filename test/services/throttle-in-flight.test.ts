// Throttles are exact under concurrency (README, Configuration): attempts in flight count against a
// limit until they end, so a parallel burst of N wrong guesses against a limit of 10 is answered
// with at most 10 evaluations and the rest 429 — logins, HTTP Basic and redemptions alike — while a
// success gives its slot back, so a holder's retries of a valid code (or a user's logins) never
// meet a 429 caused by their own successes. Through the real server with THROTTLE on, on the
// dialect the run uses (Postgres when TEST_DATABASE_URL is set). Each test is a client of its own
// (X-Forwarded-For from a trusted proxy), so one test's failures never use up another's per-address
// limits.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { testDialect } from "../helpers/databases";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { startsRealServer } from "../helpers/requires";

const PASSWORD = "correct horse battery staple";
const LIMIT = 10;

let server: RealServer;
let adminToken: string;
let bookId: number;
/** The client address of the running test, set by `asClient`. */
let client = "192.0.2.1";
let clients = 1;

/** Every request from here on comes from a client address no other test used. */
function asClient(): void {
  clients += 1;
  client = `192.0.2.${clients}`;
}

// The whole file is a real server's: test:fast leaves it to the full run.
const realServer = startsRealServer();

beforeAll(async () => {
  if (!realServer) return;
  server = await startRealServer({ env: { THROTTLE: "on", TRUSTED_PROXIES: "127.0.0.1" } });
  const admin = await register("in-flight-admin@example.com");
  await grantAdminWithCli("in-flight-admin@example.com", server.dataEnv);
  adminToken = admin.token;
  const book = await call("POST", "/book", { token: adminToken, json: { title: "In flight" } });
  expect(book.status).toBe(201);
  bookId = ((await book.json()) as { id: number }).id;
});

afterAll(async () => {
  await server?.stop();
});

async function call(
  method: string,
  path: string,
  options: { token?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "X-Forwarded-For": client, ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`${server.url}${path}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
  });
}

async function register(email: string): Promise<{ token: string; email: string }> {
  const response = await call("POST", "/authentication/register", { json: { email, password: PASSWORD } });
  expect(response.status).toBe(201);
  return { token: ((await response.json()) as { token: string }).token, email };
}

const login = (email: string, password: string) =>
  call("POST", "/authentication/login", { json: { email, password } });

const redeem = (token: string, code: string) =>
  call("POST", "/activation/by-qr-code", { token, json: { code } });

async function newCode(maxActivations: number): Promise<string> {
  const response = await call("POST", "/activation-qr-code", {
    token: adminToken,
    json: { bookId, maxActivations },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { code: string }).code;
}

const badCode = (i: number) => `ZZZZ-ZZZZ-ZZZZ-Z${String(i).padStart(3, "0")}`;

/** How many answers had each status, every body read. */
async function tally(responses: Response[]): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const response of responses) {
    await response.arrayBuffer();
    counts[response.status] = (counts[response.status] ?? 0) + 1;
  }
  return counts;
}

async function burst(n: number, request: (i: number) => Promise<Response>): Promise<Record<number, number>> {
  return tally(await Promise.all(Array.from({ length: n }, (_, i) => request(i))));
}

describe.if(realServer)(`throttles under parallel bursts, real server (${testDialect})`, () => {
  test("100 parallel wrong passwords for one account: 10 evaluated (401), 90 × 429", async () => {
    asClient();
    const { email } = await register("burst-login@example.com");
    const counts = await burst(100, (i) => login(email, `wrong-${i}-xx`));
    expect(counts).toEqual({ 401: LIMIT, 429: 100 - LIMIT });
    expect((await login(email, PASSWORD)).status).toBe(429);
  });

  test("100 parallel wrong HTTP Basic passwords for one account: 10 evaluated (401), 90 × 429", async () => {
    asClient();
    const { email } = await register("burst-basic@example.com");
    const basic = (password: string) => ({
      headers: { Authorization: `Basic ${btoa(`${email}:${password}`)}` },
    });
    const counts = await burst(100, (i) => call("GET", "/authentication/me", basic(`wrong-${i}-xx`)));
    expect(counts).toEqual({ 401: LIMIT, 429: 100 - LIMIT });
  });

  test("30 parallel bad redemptions by one user: 10 evaluated (404/409), 20 × 429", async () => {
    asClient();
    const exhausted = await newCode(1);
    expect((await redeem((await register("first-reader@example.com")).token, exhausted)).status).toBe(201);
    const { token } = await register("burst-redeemer@example.com");
    const counts = await burst(30, (i) => redeem(token, i % 3 === 0 ? exhausted : badCode(i)));
    const evaluated = (counts[404] ?? 0) + (counts[409] ?? 0);
    expect(evaluated).toBe(LIMIT);
    expect(counts[429]).toBe(30 - LIMIT);
    expect(Object.keys(counts).every((status) => ["404", "409", "429"].includes(status))).toBe(true);
  });

  test("a holder with 9 failures retrying a valid code 10 times at once: no 429, and its budget is intact", async () => {
    asClient();
    const code = await newCode(1);
    const { token } = await register("holder@example.com");
    expect((await redeem(token, code)).status).toBe(201);
    for (let i = 0; i < LIMIT - 1; i++) expect((await redeem(token, badCode(100 + i))).status).toBe(404);
    expect(await burst(10, () => redeem(token, code))).toEqual({ 200: 10 });
    // The successes gave their slots back: one failure is left, then the limit holds.
    expect((await redeem(token, badCode(199))).status).toBe(404);
    expect((await redeem(token, code)).status).toBe(429);
  });

  test("a user with 9 failed logins logging in 10 times at once: all 200, and its budget is intact", async () => {
    asClient();
    const { email } = await register("retrier@example.com");
    for (let i = 0; i < LIMIT - 1; i++) expect((await login(email, `wrong-${i}-xx`)).status).toBe(401);
    expect(await burst(10, () => login(email, PASSWORD))).toEqual({ 200: 10 });
    expect((await login(email, "wrong-last-xx")).status).toBe(401);
    expect((await login(email, PASSWORD)).status).toBe(429);
  });
});
