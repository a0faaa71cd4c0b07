// The dashboard's active readers (API.md §10 /console): the accounts with an API session made or seen,
// or a device token made or used, in the last 30 days, each once — kept by the triggers of migration
// 0019 in daily_count, so the page reads 30 rows whatever the users. SQLite or Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { consoleRequest, signedInAdmin, signIn, textOf } from "./helpers";

describe("console dashboard: active readers", () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
  });
  afterAll(() => t.close());

  const activeReaders = async () => {
    const response = await consoleRequest(t, "GET", "/console", { cookie });
    expect(response.status).toBe(200);
    const text = textOf(await response.text());
    expect(text).toContain("Active readers: the accounts that signed in to an app");
    const match = /([\d,]+) Active readers \(30 days\)/.exec(text);
    if (!match) throw new Error(`no active readers on the dashboard: ${text}`);
    return Number(match[1]?.replaceAll(",", ""));
  };
  /** Moves the clock on; the console session idles out meanwhile, so staff sign in again (no API session). */
  const later = async (days: number) => {
    t.clock.advance(days * 86_400_000);
    cookie = await signIn(t);
  };
  const login = async (email: string) =>
    (await t.call("POST", "/authentication/login", { json: { email, password: TEST_PASSWORD } })).status;

  test("a reader signing in counts once; 30 days later they no longer count, until active again", async () => {
    // The admin of signedInAdmin has an API session already (t.admin signs in).
    const before = await activeReaders();
    expect(before).toBe(1);
    const reader = await t.user();
    expect(await activeReaders()).toBe(before + 1);
    // Signing in again the same day, or being seen, counts nothing more.
    expect(await login(reader.email)).toBe(200);
    expect((await t.call("GET", "/book/my-books", { token: reader.token })).status).toBe(200);
    expect(await activeReaders()).toBe(before + 1);
    // Day 29 after: still in the window; day 30 after: out (the window is today and the 29 before).
    await later(29);
    expect(await activeReaders()).toBe(before + 1);
    await later(1);
    expect(await activeReaders()).toBe(0);
    // Active again: their row moves to today, counted once.
    expect(await login(reader.email)).toBe(200);
    expect(await login(reader.email)).toBe(200);
    expect(await activeReaders()).toBe(1);
  });

  test("a device token used by a reader's app makes them active again", async () => {
    const reader = await t.user();
    const made = await t.call("POST", "/authentication/device-token", {
      token: reader.token,
      json: { name: "e-reader", password: TEST_PASSWORD, scopes: ["opds"] },
    });
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: string };
    await later(40);
    expect(await activeReaders()).toBe(0);
    // The e-reader fetches its shelf with HTTP Basic and the token, 40 days on.
    const basic = `Basic ${Buffer.from(`${reader.email}:${token}`).toString("base64")}`;
    const shelf = await t.call("GET", "/opds/shelf", { headers: { Authorization: basic } });
    expect(shelf.status).toBe(200);
    expect(await activeReaders()).toBe(1);
  });
});
