// Throttling under bursts. Only failures count, and attempts in flight count until they end: a burst
// of bad guesses is evaluated exactly up to the limit and refused beyond it, each failure counted
// once (one atomic upsert, on SQLite and Postgres alike), and a success never meets a 429 because
// of requests running beside it (it gives its slot back). The real server's side of it:
// throttle-in-flight.test.ts.
import { describe, expect, test } from "bun:test";
import { Book } from "../../src/routes/books/books.schemas";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import { testDialect } from "../helpers/databases";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

const BURST = 30;
const LIMIT = 10;

async function withApp(work: (t: TestApp) => Promise<void>) {
  const t = await createTestApp();
  try {
    await work(t);
  } finally {
    await t.close();
  }
}

/** Every answer is the failure or 429 with a sane Retry-After; returns how many failed. */
async function expectFailedOrThrottled(responses: Response[], failureStatus: number) {
  const statuses = responses.map((response) => response.status);
  expect(statuses.every((status) => status === failureStatus || status === 429)).toBe(true);
  for (const response of responses.filter((r) => r.status === 429)) {
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    await expectProblem(response, 429, "TOO_MANY_REQUESTS");
  }
  return statuses.filter((status) => status === failureStatus).length;
}

/** The failure counts the throttle recorded, largest first. */
async function recordedCounts(t: TestApp, prefix: string): Promise<number[]> {
  const { db } = t.deps;
  const rows = await db.orm.select().from(db.tables.rateLimit);
  return rows
    .filter((row) => row.key.startsWith(`${prefix}:`))
    .map((row) => row.count)
    .sort((a, b) => b - a);
}

const badCode = (i: number) => `ZZZZ-ZZZZ-ZZZZ-Z${String(i).padStart(3, "0")}`;

describe(`throttling bursts (${testDialect})`, () => {
  test(`${BURST} parallel bad redemptions by one user: the limit evaluated, the rest 429`, () =>
    withApp(async (t) => {
      const guesser = await t.user();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          t.call("POST", "/activation/by-qr-code", { token: guesser.token, json: { code: badCode(i) } }),
        ),
      );
      const failed = await expectFailedOrThrottled(responses, 404);
      expect(failed).toBe(LIMIT);
      expect(await recordedCounts(t, "redeem-user")).toEqual([failed]);
      const next = await t.call("POST", "/activation/by-qr-code", {
        token: guesser.token,
        json: { code: badCode(98) },
      });
      expect(next.status).toBe(429);
      // Refused attempts were not counted against the address: another user still has room.
      const other = await t.user();
      const elsewhere = await t.call("POST", "/activation/by-qr-code", {
        token: other.token,
        json: { code: badCode(99) },
      });
      expect(elsewhere.status).toBe(404);
    }));

  test(`${BURST} parallel bad logins for one account: the limit evaluated, the rest 429 even for the right password`, () =>
    withApp(async (t) => {
      const user = await t.user();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          t.call("POST", "/authentication/login", { json: { email: user.email, password: `wrong-${i}-xx` } }),
        ),
      );
      const failed = await expectFailedOrThrottled(responses, 401);
      expect(failed).toBe(LIMIT);
      expect(await recordedCounts(t, "login")).toEqual([failed]);
      const next = await t.call("POST", "/authentication/login", {
        json: { email: user.email, password: TEST_PASSWORD },
      });
      expect(next.status).toBe(429);
    }));

  test(`${BURST} parallel bad HTTP Basic credentials: the limit evaluated, the rest 429`, () =>
    withApp(async (t) => {
      const user = await t.user();
      const basic = (password: string) => ({
        headers: { Authorization: `Basic ${btoa(`${user.email}:${password}`)}` },
      });
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) => t.call("GET", "/authentication/me", basic(`wrong-${i}-xx`))),
      );
      const failed = await expectFailedOrThrottled(responses, 401);
      expect(failed).toBe(LIMIT);
      expect(await recordedCounts(t, "login")).toEqual([failed]);
      expect((await t.call("GET", "/authentication/me", basic(TEST_PASSWORD))).status).toBe(429);
    }));

  test("a holder with 8 failures retrying a valid code 10 times at once: all succeed", () =>
    withApp(async (t) => {
      const admin = await t.admin();
      const book = await bodyAs(
        await t.call("POST", "/book", { token: admin.token, json: { title: "Retried" } }),
        Book,
      );
      const qr = await bodyAs(
        await t.call("POST", "/activation-qr-code", {
          token: admin.token,
          json: { bookId: book.id, maxActivations: 1 },
        }),
        ActivationQrCode,
      );
      const reader = await t.user();
      for (let i = 0; i < 8; i++) {
        const response = await t.call("POST", "/activation/by-qr-code", {
          token: reader.token,
          json: { code: badCode(i) },
        });
        expect(response.status).toBe(404);
      }
      const retries = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.call("POST", "/activation/by-qr-code", { token: reader.token, json: { code: qr.code } }),
        ),
      );
      const statuses = retries.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      expect(await recordedCounts(t, "redeem-user")).toEqual([8]);
    }));

  test("a user with 8 failed logins logging in 10 times at once: all succeed", () =>
    withApp(async (t) => {
      const user = await t.user();
      for (let i = 0; i < 8; i++) {
        const response = await t.call("POST", "/authentication/login", {
          json: { email: user.email, password: `wrong-${i}-xx` },
        });
        expect(response.status).toBe(401);
      }
      const logins = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.call("POST", "/authentication/login", { json: { email: user.email, password: TEST_PASSWORD } }),
        ),
      );
      expect(logins.map((response) => response.status)).toEqual(Array.from({ length: 10 }, () => 200));
    }));

  test("successful redemptions do not use up the failure budget", () =>
    withApp(async (t) => {
      const admin = await t.admin();
      const book = await bodyAs(
        await t.call("POST", "/book", { token: admin.token, json: { title: "Held" } }),
        Book,
      );
      const qr = await bodyAs(
        await t.call("POST", "/activation-qr-code", {
          token: admin.token,
          json: { bookId: book.id, maxActivations: 5 },
        }),
        ActivationQrCode,
      );
      const reader = await t.user();
      // One new activation, then the same code again and again: the existing one, each a success.
      const statuses = [];
      for (let i = 0; i < LIMIT + 5; i++) {
        const response = await t.call("POST", "/activation/by-qr-code", {
          token: reader.token,
          json: { code: qr.code },
        });
        statuses.push(response.status);
      }
      expect(statuses).toEqual([201, ...Array.from({ length: LIMIT + 4 }, () => 200)]);
      // The whole budget of failures is still there.
      for (let i = 0; i < LIMIT; i++) {
        const response = await t.call("POST", "/activation/by-qr-code", {
          token: reader.token,
          json: { code: badCode(i) },
        });
        expect(response.status).toBe(404);
      }
      const throttled = await t.call("POST", "/activation/by-qr-code", {
        token: reader.token,
        json: { code: qr.code },
      });
      expect(throttled.status).toBe(429);
    }));

  test("successful logins do not use up the failure budget", () =>
    withApp(async (t) => {
      const user = await t.user();
      for (let i = 0; i < LIMIT + 2; i++) {
        const response = await t.call("POST", "/authentication/login", {
          json: { email: user.email, password: TEST_PASSWORD },
        });
        expect(response.status).toBe(200);
      }
      for (let i = 0; i < LIMIT; i++) {
        const response = await t.call("POST", "/authentication/login", {
          json: { email: user.email, password: `wrong-${i}-xx` },
        });
        expect(response.status).toBe(401);
      }
      const blocked = await t.call("POST", "/authentication/login", {
        json: { email: user.email, password: TEST_PASSWORD },
      });
      expect(blocked.status).toBe(429);
    }));

  test("THROTTLE=off: no throttling state is written at all", async () => {
    const t = await createTestApp({ env: { THROTTLE: "off" } });
    try {
      const user = await t.user();
      await t.call("POST", "/activation/by-qr-code", { token: user.token, json: { code: badCode(1) } });
      await t.call("POST", "/authentication/login", { json: { email: user.email, password: "wrong-xx" } });
      const { db } = t.deps;
      expect(await db.orm.select().from(db.tables.rateLimit)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
