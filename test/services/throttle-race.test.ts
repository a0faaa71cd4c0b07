// Throttling under bursts: a failure slot is taken before the attempt, atomically, so parallel bad
// guesses cannot all pass one check and be counted only afterwards. Successes give their slot back.
import { describe, expect, test } from "bun:test";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import { testDialect } from "../helpers/databases";
import { bodyOf, createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

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

/** At most the limit gets through; every other answer is 429 with a sane Retry-After. */
async function expectThrottled(responses: Response[], failureStatus: number) {
  const statuses = responses.map((response) => response.status);
  const passed = statuses.filter((status) => status !== 429);
  expect(passed.length).toBeLessThanOrEqual(LIMIT);
  expect(passed.every((status) => status === failureStatus)).toBe(true);
  for (const response of responses.filter((r) => r.status === 429)) {
    const retryAfter = Number(response.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect((await bodyOf(response)).code).toBe("TOO_MANY_REQUESTS");
  }
  return passed.length;
}

const badCode = (i: number) => `ZZZZ-ZZZZ-ZZZZ-Z${String(i).padStart(3, "0")}`;

describe(`throttling bursts (${testDialect})`, () => {
  test(`${BURST} parallel bad redemptions by one user: at most ${LIMIT} get through, the rest 429`, () =>
    withApp(async (t) => {
      const guesser = await t.user();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          t.call("POST", "/activation/by-qr-code", { token: guesser.token, json: { code: badCode(i) } }),
        ),
      );
      expect(await expectThrottled(responses, 404)).toBeGreaterThan(0);
      // The refused attempts were not counted against the address: another user still has room.
      const other = await t.user();
      const next = await t.call("POST", "/activation/by-qr-code", {
        token: other.token,
        json: { code: badCode(99) },
      });
      expect(next.status).toBe(404);
    }));

  test(`${BURST} parallel bad logins for one login: at most ${LIMIT} get through, the rest 429`, () =>
    withApp(async (t) => {
      const user = await t.user();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          t.call("POST", "/authentication/login", { json: { email: user.email, password: `wrong-${i}-xx` } }),
        ),
      );
      expect(await expectThrottled(responses, 401)).toBeGreaterThan(0);
    }));

  test(`${BURST} parallel bad HTTP Basic credentials: at most ${LIMIT} get through, the rest 429`, () =>
    withApp(async (t) => {
      const user = await t.user();
      const responses = await Promise.all(
        Array.from({ length: BURST }, (_, i) =>
          t.call("GET", "/authentication/me", {
            headers: { Authorization: `Basic ${btoa(`${user.email}:wrong-${i}-xx`)}` },
          }),
        ),
      );
      expect(await expectThrottled(responses, 401)).toBeGreaterThan(0);
    }));

  test("successful redemptions do not use up the failure budget", () =>
    withApp(async (t) => {
      const admin = await t.admin();
      const book = await bodyOf(
        await t.call("POST", "/book", { token: admin.token, json: { title: "Held" } }),
      );
      const qr = ActivationQrCode.parse(
        await bodyOf(
          await t.call("POST", "/activation-qr-code", {
            token: admin.token,
            json: { bookId: book.id, maxActivations: 5 },
          }),
        ),
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
