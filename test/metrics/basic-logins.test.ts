// Logins over HTTP Basic count in bookdist_logins_total by result, as POST /authentication/login's
// do: each password checked is one (a credential the cache answers was counted when checked).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registry } from "../../src/metrics/registry";
import { basicAuth } from "../helpers/reading-books";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

type Result = "success" | "failure" | "throttled";

async function logins(): Promise<Record<Result, number>> {
  const metric = await registry.getSingleMetric("bookdist_logins_total")!.get();
  const counts: Record<Result, number> = { success: 0, failure: 0, throttled: 0 };
  for (const value of metric.values) counts[value.labels.result as Result] = value.value;
  return counts;
}

describe("bookdist_logins_total counts HTTP Basic logins", () => {
  let t: TestApp;
  let email: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ email } = await t.user());
  });
  afterAll(() => t.close());

  const shelf = (password: string) =>
    t.call("GET", "/book/my-books", { headers: { Authorization: basicAuth(email, password) } });

  test("a password that passes is a success, once: the cached credential is not checked again", async () => {
    const before = await logins();
    expect((await shelf(TEST_PASSWORD)).status).toBe(200);
    expect((await shelf(TEST_PASSWORD)).status).toBe(200);
    const after = await logins();
    expect(after.success - before.success).toBe(1);
    expect(after.failure - before.failure).toBe(0);
  });

  test("a wrong password is a failure, and the throttle's refusal is throttled", async () => {
    const before = await logins();
    expect((await shelf("not the password")).status).toBe(401);
    const afterOne = await logins();
    expect(afterOne.failure - before.failure).toBe(1);
    expect(afterOne.success - before.success).toBe(0);
    let status = 401;
    for (let i = 0; i < 50 && status === 401; i++) status = (await shelf(`wrong ${i}`)).status;
    expect(status).toBe(429);
    expect((await logins()).throttled - before.throttled).toBe(1);
  });
});
