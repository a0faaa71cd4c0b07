// KOReader's progress sync at /kosync, replayed as KOReader's kosync plugin sends it (its
// `Accept: application/vnd.koreader.v1+json`, `x-auth-user`, `x-auth-key` = the MD5 of the
// password typed in, JSON bodies) and answered as the official koreader-sync-server answers:
// authorization, registration refused, a push then a pull from a second device, a pull with
// nothing stored, a document the reader does not hold, the `{code, message}` errors, and
// `Content-Type: application/json` with no charset on every answer. Then KOReader's position
// meets the API's in the one row per (user, book).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ReadingProgress } from "../../src/routes/reading-progress/reading-progress.schemas";
import { partialMd5 } from "../../src/storage/partial-md5";
import { testDialect } from "../helpers/databases";
import { basicAuth, bookWithArchive, deviceToken, grantBook, md5Hex } from "../helpers/reading-books";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

/** The partial MD5 of bytes in memory: what KOReader computes of the file it opened. */
const documentOf = (bytes: Uint8Array) =>
  partialMd5(
    async (start, end) => new DataView(bytes.buffer.slice(bytes.byteOffset + start, bytes.byteOffset + end)),
    bytes.length,
  );

describe(`KOReader's sync protocol at /kosync (${testDialect})`, () => {
  let t: TestApp;
  let reader: { token: string; uuid: string; email: string };
  let kobo: string;
  let phone: string;
  let held: { bookId: number; versionId: number; document: string };
  let notHeld: { bookId: number; document: string };
  let heldUnread: { document: string };

  /** A request as KOReader's client makes it. */
  const koreader = (
    method: string,
    path: string,
    auth: { user: string; password: string } | null,
    body?: unknown,
  ) => {
    const headers: Record<string, string> = { Accept: "application/vnd.koreader.v1+json" };
    if (auth) {
      headers["x-auth-user"] = auth.user;
      headers["x-auth-key"] = md5Hex(auth.password);
    }
    if (body !== undefined) headers["Content-Type"] = "application/json";
    return t.call(method, `/kosync${path}`, {
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  };

  /** The answer's status and JSON, after checking its Content-Type is exactly application/json. */
  async function answer(response: Response): Promise<{ status: number; body: unknown }> {
    expect(response.headers.get("content-type")).toBe("application/json");
    return { status: response.status, body: await response.json() };
  }

  beforeAll(async () => {
    t = await createTestApp();
    reader = await t.user();
    kobo = await deviceToken(t, reader.token, ["sync"], "KOReader on the Kobo");
    phone = await deviceToken(t, reader.token, ["sync"], "KOReader on the phone");
    const a = await bookWithArchive(t, "Held book");
    await grantBook(t, a.bookId, reader.uuid);
    held = { bookId: a.bookId, versionId: a.versionId, document: await documentOf(a.bytes) };
    const b = await bookWithArchive(t, "Someone else's book");
    notHeld = { bookId: b.bookId, document: await documentOf(b.bytes) };
    const c = await bookWithArchive(t, "Held, never synced");
    await grantBook(t, c.bookId, reader.uuid);
    heldUnread = { document: await documentOf(c.bytes) };
  });
  afterAll(() => t.close());

  test("the stored partial MD5 is the one KOReader computes of the file served", async () => {
    const download = await t.call("GET", `/book/${held.bookId}/newest-book-version`, {
      headers: { Authorization: basicAuth(reader.email, kobo) },
    });
    // The sync token is no download token; the admin's session reads the file instead.
    expect(download.status).toBe(401);
    const admin = await t.admin();
    const served = new Uint8Array(
      await (
        await t.call("GET", `/bookversion/${held.versionId}/download`, { token: admin.token })
      ).arrayBuffer(),
    );
    expect(await documentOf(served)).toBe(held.document);
  });

  test("POST /users/create → 402 {code: 2005}", async () => {
    const { status, body } = await answer(
      await koreader("POST", "/users/create", null, { username: reader.email, password: md5Hex("x") }),
    );
    expect(status).toBe(402);
    expect(body).toEqual({ code: 2005, message: "User registration is disabled." });
  });

  test("GET /users/auth → 200 {authorized: OK} with a sync token's MD5; 401 {code: 2001} otherwise", async () => {
    expect(
      await answer(await koreader("GET", "/users/auth", { user: reader.email, password: kobo })),
    ).toEqual({
      status: 200,
      body: { authorized: "OK" },
    });
    // The user name is matched as login is: case and surrounding spaces aside.
    expect(
      (await koreader("GET", "/users/auth", { user: reader.email.toUpperCase(), password: kobo })).status,
    ).toBe(200);
    const opdsOnly = await deviceToken(t, reader.token, ["opds"], "a catalog reader");
    const other = await t.user();
    const unauthorized = { status: 401, body: { code: 2001, message: "Unauthorized" } };
    for (const auth of [
      null,
      { user: reader.email, password: "the shop password is not a device token" },
      { user: reader.email, password: opdsOnly },
      { user: other.email, password: kobo },
    ]) {
      expect(await answer(await koreader("GET", "/users/auth", auth))).toEqual(unauthorized);
    }
    // A key that is no MD5 at all, and a user name alone.
    const odd = await t.call("GET", "/kosync/users/auth", {
      headers: { "x-auth-user": reader.email, "x-auth-key": "not-hex" },
    });
    expect(await answer(odd)).toEqual(unauthorized);
    expect(
      await answer(await t.call("GET", "/kosync/users/auth", { headers: { "x-auth-user": reader.email } })),
    ).toEqual(unauthorized);
  });

  test("a pull with nothing stored → 200 {}", async () => {
    expect(
      await answer(
        await koreader("GET", `/syncs/progress/${heldUnread.document}`, {
          user: reader.email,
          password: kobo,
        }),
      ),
    ).toEqual({ status: 200, body: {} });
  });

  test("a push from the Kobo, then a pull from the phone: the Kobo's position", async () => {
    t.clock.set("2026-11-21T10:00:00.000Z");
    const push = {
      document: held.document,
      progress: "/body/DocFragment[12]/body/div/p[4]/text().83",
      percentage: 0.3721,
      device: "Kobo Libra 2",
      device_id: "0E5C7A3B1F2D4E6A8B9C0D1E2F3A4B5C",
    };
    const pushed = await answer(
      await koreader("PUT", "/syncs/progress", { user: reader.email, password: kobo }, push),
    );
    expect(pushed).toEqual({
      status: 200,
      body: { document: held.document, timestamp: Date.parse("2026-11-21T10:00:00.000Z") / 1000 },
    });
    t.clock.advance(60_000);
    const pulled = await answer(
      await koreader("GET", `/syncs/progress/${held.document}`, { user: reader.email, password: phone }),
    );
    expect(pulled).toEqual({
      status: 200,
      body: { ...push, timestamp: Date.parse("2026-11-21T10:00:00.000Z") / 1000 },
    });
  });

  test("a document of a book the reader does not hold: 200 on push, not stored, {} on pull", async () => {
    for (const document of [notHeld.document, "0123456789abcdef0123456789abcdef", "not-even-a-digest"]) {
      const pushed = await answer(
        await koreader(
          "PUT",
          "/syncs/progress",
          { user: reader.email, password: kobo },
          { document, progress: "12", percentage: 0.5, device: "Kobo Libra 2", device_id: "X" },
        ),
      );
      expect(pushed.status).toBe(200);
      expect(pushed.body).toEqual({ document, timestamp: expect.any(Number) });
      const pulled = await answer(
        await koreader("GET", `/syncs/progress/${document}`, { user: reader.email, password: kobo }),
      );
      expect(pulled).toEqual({ status: 200, body: {} });
    }
    // Nothing was stored for the book the reader does not hold, even for its admin.
    const admin = await t.admin();
    expect((await t.call("GET", `/book/${notHeld.bookId}/progress`, { token: admin.token })).status).toBe(
      204,
    );
  });

  test("a push with a field missing or malformed → 403 {code: 2003}; without credentials → 401", async () => {
    const good = { document: held.document, progress: "5", percentage: 0.1, device: "Kobo", device_id: "X" };
    const invalid = { status: 403, body: { code: 2003, message: "Invalid request" } };
    for (const body of [
      { ...good, document: undefined },
      { ...good, progress: undefined },
      { ...good, percentage: undefined },
      { ...good, device: undefined },
      { ...good, percentage: 1.5 },
      { ...good, percentage: "0.1" },
      { ...good, progress: "x".repeat(9000) },
      [good],
    ]) {
      expect(
        await answer(await koreader("PUT", "/syncs/progress", { user: reader.email, password: kobo }, body)),
      ).toEqual(invalid);
    }
    const notJson = await t.call("PUT", "/kosync/syncs/progress", {
      headers: {
        "x-auth-user": reader.email,
        "x-auth-key": md5Hex(kobo),
        "Content-Type": "application/json",
      },
      body: "{not json",
    });
    expect(await answer(notJson)).toEqual(invalid);
    expect((await answer(await koreader("PUT", "/syncs/progress", null, good))).status).toBe(401);
    expect((await answer(await koreader("GET", `/syncs/progress/${held.document}`, null))).status).toBe(401);
    // Nothing of these reached the row: the Kobo's push stands.
    const pulled = await answer(
      await koreader("GET", `/syncs/progress/${held.document}`, { user: reader.email, password: kobo }),
    );
    expect(pulled.body).toMatchObject({ percentage: 0.3721, device: "Kobo Libra 2" });
  });

  test("KOReader's position and the API's meet in one row: the latest write wins", async () => {
    const sync = { Authorization: basicAuth(reader.email, phone) };
    // The Kobo's push, read through the API with a sync device token.
    const read = await bodyAs(
      await t.call("GET", `/book/${held.bookId}/progress`, { headers: sync }),
      ReadingProgress,
    );
    expect(read).toEqual({
      bookId: held.bookId,
      versionId: held.versionId,
      percentage: 0.3721,
      locator: null,
      koreader: {
        progress: "/body/DocFragment[12]/body/div/p[4]/text().83",
        device: "Kobo Libra 2",
        deviceId: "0E5C7A3B1F2D4E6A8B9C0D1E2F3A4B5C",
      },
      device: "Kobo Libra 2",
      updatedAt: "2026-11-21T10:00:00.000Z",
    });
    // A position taken before the Kobo's push: another device moved on.
    const locator = {
      href: "OEBPS/chapter-05.xhtml",
      type: "application/xhtml+xml",
      locations: { progression: 0.5, totalProgression: 0.45 },
    };
    const stale = await t.call("PUT", `/book/${held.bookId}/progress`, {
      headers: sync,
      json: { percentage: 0.2, locator, device: "Thorium", modified: "2026-11-21T09:59:00.000Z" },
    });
    await expectProblem(stale, 409, "CONFLICT");
    t.clock.set("2026-11-21T10:05:00.000Z");
    const moved = await t.call("PUT", `/book/${held.bookId}/progress`, {
      headers: sync,
      json: { percentage: 0.45, locator, device: "Thorium", modified: "2026-11-21T10:04:00.000Z" },
    });
    expect(moved.status).toBe(200);
    // KOReader now reads the API's percentage (its own position no longer holds).
    const pulled = await answer(
      await koreader("GET", `/syncs/progress/${held.document}`, { user: reader.email, password: kobo }),
    );
    expect(pulled).toEqual({
      status: 200,
      body: {
        document: held.document,
        percentage: 0.45,
        device: "Thorium",
        device_id: "",
        timestamp: Date.parse("2026-11-21T10:04:00.000Z") / 1000,
      },
    });
    // And KOReader's next push wins again, stamped now.
    t.clock.set("2026-11-21T10:06:00.000Z");
    await koreader(
      "PUT",
      "/syncs/progress",
      { user: reader.email, password: kobo },
      {
        document: held.document,
        progress: "/body/DocFragment[14]/body/p[1]/text().0",
        percentage: 0.5,
        device: "Kobo Libra 2",
        device_id: "K",
      },
    );
    const after = await bodyAs(
      await t.call("GET", `/book/${held.bookId}/progress`, { headers: sync }),
      ReadingProgress,
    );
    expect(after).toMatchObject({ percentage: 0.5, locator: null, updatedAt: "2026-11-21T10:06:00.000Z" });
  });

  test("a revoked token stops at once", async () => {
    const token = await deviceToken(t, reader.token, ["sync"], "soon revoked");
    expect((await koreader("GET", "/users/auth", { user: reader.email, password: token })).status).toBe(200);
    const list = (await (
      await t.call("GET", "/authentication/device-token", { token: reader.token })
    ).json()) as {
      id: number;
      name: string;
    }[];
    const id = list.find((row) => row.name === "soon revoked")!.id;
    expect(
      (await t.call("DELETE", `/authentication/device-token/${id}`, { token: reader.token })).status,
    ).toBe(200);
    expect(
      await answer(await koreader("GET", "/users/auth", { user: reader.email, password: token })),
    ).toEqual({
      status: 401,
      body: { code: 2001, message: "Unauthorized" },
    });
  });
});
