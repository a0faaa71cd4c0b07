// The audit log (README "Audit log"), driven by the OpenAPI document: every admin write operation
// it declares has a case here that performs it and checks the one event it leaves (actor, via,
// action, target, changes, requestId, client), so a new admin operation without its event fails
// this test. Then the read side: filters, sort, paging, HAL, count and one event by id.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { insertApk, updateApk } from "../../src/repositories/apks";
import { insertAuditEvents } from "../../src/repositories/audit-events";
import { Apk } from "../../src/routes/apks/apks.schemas";
import { AuditEvent } from "../../src/routes/audit-events/audit-events.schemas";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { revokeAdmin } from "../../src/services/admin-grants";
import { cliSource } from "../../src/services/audit";
import { expectedApks, fixtureBytes } from "../helpers/android-tools";
import { makePng } from "../helpers/png";
import { bodyAs, expectProblem, jsonOf } from "../helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

type Event = ReturnType<typeof AuditEvent.parse>;

const t: TestApp = await createTestApp();
const doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as {
  paths: Record<string, Record<string, { "x-access-level": string; operationId: string }>>;
};

/**
 * The admin write operations the document declares, and the owner-level ones an admin's use on
 * another user's record audits (a code redeemed for them, their device token revoked).
 */
const writes = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(
      ([method, op]) =>
        method !== "get" &&
        (op["x-access-level"] === "admin" ||
          op.operationId === "redeemActivationQrCode" ||
          op.operationId === "revokeDeviceToken"),
    )
    .map(([method, op]) => ({ method: method.toUpperCase(), path, operationId: op.operationId })),
);

let admin: { token: string; uuid: string; email: string };
let reader: { token: string; uuid: string; email: string };

beforeAll(async () => {
  admin = await t.admin();
  reader = await t.user();
});
afterAll(() => t.close());

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function call(method: string, path: string, options: Parameters<TestApp["call"]>[2] = {}) {
  const response = await t.call(method, path, { token: admin.token, ...options });
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response;
}

async function newBook(title = "Audited"): Promise<number> {
  return (await bodyAs(await call("POST", "/book", { json: { title } }), Book)).id;
}
async function newVersion(bookId: number): Promise<number> {
  const response = await call("POST", "/bookversion", {
    json: { bookId, versionCode: 1, versionName: "1.0" },
  });
  return (await bodyAs(response, BookVersion)).id;
}
let nextApkCode = 100;
async function newApk(versionCode = nextApkCode++): Promise<number> {
  const response = await call("POST", "/apk", {
    json: { kind: "launcher", versionCode, versionName: "1.0" },
  });
  return (await bodyAs(response, Apk)).id;
}
const apkFixture = expectedApks.find((apk) => apk.file === "tinyapp-v2-rsa2048.apk")!;
/** Every fixture is versionCode 10: earlier cases' records of that code move to another one. */
async function moveFixtureCodeAside(): Promise<void> {
  const listed = await json<{ id: number; versionCode: number }[]>(await call("GET", "/apk?size=100"));
  for (const apk of listed.filter((row) => row.versionCode === apkFixture.versionCode)) {
    await updateApk(t.deps.db, apk.id, { versionCode: nextApkCode++ }, new Date());
  }
}
async function uploadedApk(): Promise<number> {
  await moveFixtureCodeAside();
  const id = await newApk(apkFixture.versionCode);
  await call("POST", `/apk/${id}/upload`, { body: multipartFile(fixtureBytes(apkFixture.file)) });
  return id;
}
async function json<T>(response: { json(): Promise<unknown> }): Promise<T> {
  return (await response.json()) as T;
}

/** What one case expects of its event; `changes` is matched as a subset, `absent` must not be there. */
interface Expected {
  response: Response;
  action: string;
  target: { type: string; id: number | string };
  changes: Record<string, [unknown, unknown]>;
  absent?: string[];
}

const cover = makePng({ width: 4, height: 3, colorType: 2, bitDepth: 8 });
const archive = makeZip({ "book/index.html": "<p>audited</p>" });

const cases: Record<string, () => Promise<Expected>> = {
  createBook: async () => {
    const response = await call("POST", "/book", { json: { title: "Made", isbn: "978-3-16-148410-0" } });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "book.create",
      target: { type: "book", id },
      changes: { title: [null, "Made"], isbn: [null, "9783161484100"] },
    };
  },
  updateBook: async () => {
    const id = await newBook("Before");
    const response = await call("PUT", `/book/${id}`, { json: { title: "After", author: "Someone" } });
    return {
      response,
      action: "book.update",
      target: { type: "book", id },
      changes: { title: ["Before", "After"], author: [null, "Someone"] },
      absent: ["description", "updatedAt", "coverSha256"],
    };
  },
  deleteBook: async () => {
    const id = await newBook("Gone");
    const response = await call("DELETE", `/book/${id}`);
    return {
      response,
      action: "book.delete",
      target: { type: "book", id },
      changes: { title: ["Gone", null] },
    };
  },
  uploadBookCover: async () => {
    const id = await newBook();
    const response = await call("POST", `/book/${id}/cover`, {
      body: multipartFile(cover, { contentType: "image/png", filename: "cover.png" }),
    });
    return {
      response,
      action: "book.cover",
      target: { type: "book", id },
      changes: {
        coverSha256: [null, sha256(cover)],
        coverSize: [null, cover.byteLength],
        coverWidth: [null, 4],
      },
    };
  },
  createBookVersion: async () => {
    const bookId = await newBook();
    const response = await call("POST", "/bookversion", {
      json: { bookId, versionCode: 3, versionName: "3.0" },
    });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "bookversion.create",
      target: { type: "bookversion", id },
      changes: { bookId: [null, bookId], versionCode: [null, 3] },
    };
  },
  updateBookVersion: async () => {
    const bookId = await newBook();
    const id = await newVersion(bookId);
    const response = await call("PUT", `/bookversion/${id}`, {
      json: { bookId, versionCode: 1, versionName: "1.1" },
    });
    return {
      response,
      action: "bookversion.update",
      target: { type: "bookversion", id },
      changes: { versionName: ["1.0", "1.1"] },
      absent: ["versionCode"],
    };
  },
  deleteBookVersion: async () => {
    const id = await newVersion(await newBook());
    const response = await call("DELETE", `/bookversion/${id}`);
    return {
      response,
      action: "bookversion.delete",
      target: { type: "bookversion", id },
      changes: { versionCode: [1, null] },
    };
  },
  uploadBookVersionArchive: async () => {
    const id = await newVersion(await newBook());
    const response = await call("POST", `/bookversion/${id}/upload`, {
      body: multipartFile(archive, { contentType: "application/zip", filename: "book.zip" }),
    });
    return {
      response,
      action: "bookversion.upload",
      target: { type: "bookversion", id },
      changes: {
        archiveSha256: [null, sha256(archive)],
        archiveSize: [null, archive.byteLength],
        archiveFilename: [null, "book.zip"],
      },
    };
  },
  createActivation: async () => {
    const bookId = await newBook();
    const response = await call("POST", "/activation", { json: { bookId, userUuid: reader.uuid } });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "activation.create",
      target: { type: "activation", id },
      changes: { bookId: [null, bookId], userUuid: [null, reader.uuid] },
    };
  },
  updateActivation: async () => {
    const [first, second] = [await newBook(), await newBook()];
    const created = await call("POST", "/activation", { json: { bookId: first, userUuid: reader.uuid } });
    const { id } = await json<{ id: number }>(created);
    const response = await call("PUT", `/activation/${id}`, {
      json: { bookId: second, userUuid: reader.uuid },
    });
    return {
      response,
      action: "activation.update",
      target: { type: "activation", id },
      changes: { bookId: [first, second] },
      absent: ["userUuid"],
    };
  },
  deleteActivation: async () => {
    const bookId = await newBook();
    const created = await call("POST", "/activation", { json: { bookId, userUuid: reader.uuid } });
    const { id } = await json<{ id: number }>(created);
    const response = await call("DELETE", `/activation/${id}`);
    return {
      response,
      action: "activation.delete",
      target: { type: "activation", id },
      changes: { bookId: [bookId, null] },
    };
  },
  redeemActivationQrCode: async () => {
    const bookId = await newBook();
    const qr = await json<{ id: number; code: string }>(
      await call("POST", "/activation-qr-code", { json: { bookId } }),
    );
    const response = await call("POST", "/activation/by-qr-code", {
      json: { code: qr.code, userUuid: reader.uuid },
    });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "activation.redeem",
      target: { type: "activation", id },
      changes: { bookId: [null, bookId], userUuid: [null, reader.uuid], qrCodeId: [null, qr.id] },
    };
  },
  createActivationQrCode: async () => {
    const bookId = await newBook();
    const response = await call("POST", "/activation-qr-code", {
      json: { bookId, maxActivations: 3, label: "shelf" },
    });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "qrcode.create",
      target: { type: "qrcode", id },
      changes: {
        bookId: [null, bookId],
        maxActivations: [null, 3],
        label: [null, "shelf"],
        enabled: [null, true],
      },
      absent: ["code"],
    };
  },
  createActivationQrCodeBatch: async () => {
    const bookId = await newBook();
    const response = await call("POST", "/activation-qr-code/batch", {
      json: { bookId, quantity: 25, label: "run 1" },
    });
    const [first] = await json<{ batchId: number }[]>(response.clone());
    return {
      response,
      action: "batch.create",
      target: { type: "batch", id: first!.batchId },
      changes: { bookId: [null, bookId], label: [null, "run 1"], codes: [null, 25] },
      absent: ["code"],
    };
  },
  setActivationQrCodeEnabled: async () => {
    const qr = await json<{ id: number }>(
      await call("POST", "/activation-qr-code", { json: { bookId: await newBook() } }),
    );
    const response = await call("POST", `/activation-qr-code/${qr.id}/en-disable`, {
      json: { enabled: false },
    });
    return {
      response,
      action: "qrcode.disable",
      target: { type: "qrcode", id: qr.id },
      changes: { enabled: [true, false] },
      absent: ["code"],
    };
  },
  setQrCodeBatchEnabled: async () => {
    const created = await call("POST", "/activation-qr-code/batch", {
      json: { bookId: await newBook(), quantity: 7 },
    });
    const [first] = await json<{ batchId: number }[]>(created);
    const response = await call("POST", `/activation-qr-code/batch/${first!.batchId}/en-disable`, {
      json: { enabled: false },
    });
    return {
      response,
      action: "batch.disable",
      target: { type: "batch", id: first!.batchId },
      changes: { enabled: [null, false], codes: [null, 7] },
    };
  },
  createApk: async () => {
    const response = await call("POST", "/apk", {
      json: { kind: "launcher", versionCode: 7, versionName: "0.7" },
    });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "apk.create",
      target: { type: "apk", id },
      changes: { kind: [null, "launcher"], versionCode: [null, 7] },
    };
  },
  uploadApk: async () => {
    const created = await call("POST", "/apk", {
      json: { kind: "bookapp", versionCode: apkFixture.versionCode, versionName: "1.0" },
    });
    const id = (await bodyAs(created, Apk)).id;
    const bytes = fixtureBytes(apkFixture.file);
    const response = await call("POST", `/apk/${id}/upload`, { body: multipartFile(bytes) });
    return {
      response,
      action: "apk.upload",
      target: { type: "apk", id },
      changes: {
        fileSha256: [null, sha256(bytes)],
        fileSize: [null, bytes.byteLength],
        signerSha256: [null, apkFixture.signerSha256],
        packageName: [null, apkFixture.packageName],
      },
    };
  },
  createApkFromFile: async () => {
    await moveFixtureCodeAside();
    const bytes = fixtureBytes(apkFixture.file);
    const response = await call("POST", "/apk/upload?kind=launcher", { body: multipartFile(bytes) });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "apk.upload",
      target: { type: "apk", id },
      changes: {
        kind: [null, "launcher"],
        versionCode: [null, apkFixture.versionCode],
        fileSha256: [null, sha256(bytes)],
        signerSha256: [null, apkFixture.signerSha256],
      },
    };
  },
  activateApk: async () => {
    const id = await uploadedApk();
    const response = await call("POST", `/apk/${id}/activate?allowSignerChange=true`);
    // The later cases start with no active launcher (a repository write leaves no event).
    await updateApk(t.deps.db, id, { active: false }, new Date());
    return {
      response,
      action: "apk.activate",
      target: { type: "apk", id },
      changes: { active: [false, true] },
    };
  },
  updateApk: async () => {
    const id = await uploadedApk();
    const response = await call("PUT", `/apk/${id}`, {
      json: { kind: "launcher", versionCode: apkFixture.versionCode, versionName: "1.0", active: true },
    });
    return {
      response,
      action: "apk.activate",
      target: { type: "apk", id },
      changes: { active: [false, true], activeApk: [null, id] },
    };
  },
  deleteApk: async () => {
    const id = await newApk();
    const response = await call("DELETE", `/apk/${id}`);
    return {
      response,
      action: "apk.delete",
      target: { type: "apk", id },
      changes: { kind: ["launcher", null] },
    };
  },
  createShopProduct: async () => {
    const bookId = await newBook();
    const response = await call("POST", "/shop-product", { json: { bookId, productId: 1520 } });
    const { id } = await json<{ id: number }>(response.clone());
    return {
      response,
      action: "shopproduct.create",
      target: { type: "shopproduct", id },
      changes: { bookId: [null, bookId], productId: [null, 1520] },
    };
  },
  deleteShopProduct: async () => {
    const created = await call("POST", "/shop-product", {
      json: { bookId: await newBook(), productId: 1521 },
    });
    const { id } = await json<{ id: number }>(created);
    const response = await call("DELETE", `/shop-product/${id}`);
    return {
      response,
      action: "shopproduct.delete",
      target: { type: "shopproduct", id },
      changes: { productId: [1521, null] },
    };
  },
  revokeDeviceToken: async () => {
    const made = await t.call("POST", "/authentication/device-token", {
      token: reader.token,
      json: { name: "KOReader", password: TEST_PASSWORD, scopes: ["opds"] },
    });
    expect(made.status).toBe(201);
    const { id, token } = await json<{ id: number; token: string }>(made);
    const response = await call("DELETE", `/authentication/device-token/${id}`);
    const event = (await events("?page=0&size=1"))[0]!;
    expect(JSON.stringify(event)).not.toContain(token);
    return {
      response,
      action: "devicetoken.revoke",
      target: { type: "devicetoken", id },
      changes: { revokedAt: [null, expect.any(String)] },
      absent: ["sha256", "md5Sha256", "userUuid", "name"],
    };
  },
};

/**
 * Admin operations that change no record themselves, each with why: the test checks that they
 * leave no event of the caller's.
 */
const changeNothing: Record<string, string> = {
  syncShop:
    "runs the reconciliation; what it grants or takes back is recorded as shop.grant/shop.revoke, actor shop",
};

async function events(query = ""): Promise<Event[]> {
  const response = await call("GET", `/audit-event${query}`);
  return (await response.json()) as Event[];
}
async function count(query = ""): Promise<number> {
  return Number(await (await call("GET", `/audit-event/count${query}`)).text());
}

describe("every admin write of the document is audited", () => {
  test("the document's admin writes are exactly the cases here", () => {
    const ids = writes.map((op) => op.operationId).sort();
    expect(ids.length).toBeGreaterThan(20);
    expect(ids).toEqual([...Object.keys(cases), ...Object.keys(changeNothing)].sort());
  });

  const actions: string[] = [];
  test.each(writes)("$method $path ($operationId) leaves its one event", async (op) => {
    if (op.operationId in changeNothing) {
      const before = await count();
      await t.call(op.method, op.path, { token: admin.token });
      expect(await count(`?actor=${admin.uuid}`)).toBe((await events(`?actor=${admin.uuid}`)).length);
      expect(await count()).toBe(before);
      return;
    }
    const run = cases[op.operationId];
    if (!run) throw new Error(`no audit case for ${op.operationId}: add one (and its event)`);
    const expected = await run();
    const [event] = await events("?page=0&size=1");
    expect(event).toBeDefined();
    expect(AuditEvent.safeParse(event).success).toBe(true);
    expect(event!.actor).toEqual({ uuid: admin.uuid, email: admin.email, via: "api" });
    expect(event!.action).toBe(expected.action);
    expect(event!.target).toEqual(expected.target);
    expect(event!.changes).toMatchObject(expected.changes);
    for (const field of expected.absent ?? []) expect(event!.changes).not.toHaveProperty(field);
    expect(event!.requestId).toBe(expected.response.headers.get("x-request-id"));
    expect(event!.client).toBeString();
    // The case's own write made one event (its set-up calls theirs): a batch of codes too.
    expect(await count(`?action=${expected.action}`)).toBeGreaterThanOrEqual(1);
    actions.push(`${op.method} ${op.path} → ${expected.action}`);
  });

  test("prints the audited actions", () => {
    // The report's list of audited actions comes from this line, not from typing.
    console.log(`audited actions (${actions.length}):\n${actions.sort().join("\n")}`);
    expect(actions.length).toBe(Object.keys(cases).length);
  });
});

describe("what is not an admin's change leaves no event", () => {
  test("a reader's own redemption is no event; an admin's for another user is", async () => {
    const bookId = await newBook();
    const qr = await json<{ code: string }>(
      await call("POST", "/activation-qr-code", { json: { bookId, maxActivations: 5 } }),
    );
    const before = await count();
    const own = await t.call("POST", "/activation/by-qr-code", {
      token: reader.token,
      json: { code: qr.code },
    });
    expect(own.status).toBe(201);
    expect(await count()).toBe(before);
    const mine = await t.call("POST", "/activation/by-qr-code", {
      token: admin.token,
      json: { code: qr.code },
    });
    expect(mine.status).toBe(201);
    expect(await count()).toBe(before);
  });

  test("a reader revoking their own device token is no event", async () => {
    const made = await t.call("POST", "/authentication/device-token", {
      token: reader.token,
      json: { name: "Thorium", password: TEST_PASSWORD },
    });
    const { id } = await json<{ id: number }>(made);
    const before = await count();
    const own = await t.call("DELETE", `/authentication/device-token/${id}`, { token: reader.token });
    expect(own.status).toBe(200);
    expect(await count()).toBe(before);
  });

  test("a refused change (409, 400, 404) leaves no event", async () => {
    const bookId = await newBook();
    await call("POST", "/bookversion", { json: { bookId, versionCode: 9, versionName: "9" } });
    const before = await count();
    const duplicate = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId, versionCode: 9, versionName: "again" },
    });
    await expectProblem(duplicate, 409, "CONFLICT");
    await call("POST", "/activation", { json: { bookId, userUuid: reader.uuid } });
    const held = await t.call("DELETE", `/book/${bookId}`, { token: admin.token });
    await expectProblem(held, 409, "CONFLICT");
    await expectProblem(
      await t.call("PUT", "/book/999999", { token: admin.token, json: { title: "x" } }),
      404,
      "NOT_FOUND",
    );
    await expectProblem(
      await t.call("POST", "/bookversion", {
        token: admin.token,
        json: { bookId: 999999, versionCode: 1, versionName: "1" },
      }),
      400,
      "VALIDATION_FAILED",
    );
    // The activation made above is the one event since.
    expect(await count()).toBe(before + 1);
  });

  test("an APK activated across a signer change notes it; refused without allowSignerChange, no event", async () => {
    // The cases above hold versionCode 10 of each kind (every fixture's): they go first.
    for (const apk of await json<{ id: number }[]>(await call("GET", "/apk")))
      await call("DELETE", `/apk/${apk.id}`);
    const bytes = fixtureBytes(apkFixture.file);
    const created = await call("POST", "/apk", {
      json: { kind: "bookapp", versionCode: 10, versionName: "1.0" },
    });
    const first = (await bodyAs(created, Apk)).id;
    await call("POST", `/apk/${first}/upload`, { body: multipartFile(bytes) });
    const activeInput = { kind: "bookapp", versionCode: 10, versionName: "1.0", active: true };
    await call("PUT", `/apk/${first}`, { json: activeInput });
    // Another build of another signer: every fixture is versionCode 10, so this one's record is
    // written as an upload of it would leave it (the same bytes, another certificate).
    const other = "ab".repeat(32);
    const second = (
      await insertApk(
        t.deps.db,
        { kind: "bookapp", versionCode: 11, versionName: "1.1", releaseNotes: null },
        new Date(),
      )
    ).id;
    await updateApk(
      t.deps.db,
      second,
      {
        fileSha256: sha256(bytes),
        fileSize: bytes.byteLength,
        fileFilename: null,
        fileUploadedAt: new Date(),
        packageName: apkFixture.packageName,
        signerSha256: other,
      },
      new Date(),
    );
    const before = await count();
    const input = { ...activeInput, versionCode: 11, versionName: "1.1" };
    await expectProblem(
      await t.call("PUT", `/apk/${second}`, { token: admin.token, json: input }),
      409,
      "CONFLICT",
    );
    expect(await count()).toBe(before);
    await call("PUT", `/apk/${second}?allowSignerChange=true`, { json: input });
    const [event] = await events("?size=1");
    expect(event!.action).toBe("apk.activate");
    expect(event!.changes).toMatchObject({
      active: [false, true],
      activeApk: [first, second],
      signerChange: [apkFixture.signerSha256, other],
    });
  });
});

describe("the operator's command line", () => {
  test("bun run admin grant|revoke (in-process) are events of actor cli, naming the user", async () => {
    const someone = await t.user();
    await t.grantAdmin(someone.email);
    await revokeAdmin(t.deps, cliSource, someone.email);
    await revokeAdmin(t.deps, cliSource, someone.email);
    const [revoked, granted, ...rest] = await events(`?targetType=user&targetId=${someone.uuid}`);
    expect(rest).toEqual([]);
    const cli = { uuid: null, email: null, via: "cli" };
    expect(granted).toMatchObject({
      actor: cli,
      action: "admin.grant",
      target: { type: "user", id: someone.uuid },
      changes: { admin: [false, true] },
      requestId: null,
      client: null,
    });
    expect(revoked).toMatchObject({ actor: cli, action: "admin.revoke", changes: { admin: [true, false] } });
  });
});

describe("reading the log", () => {
  test("newest first by default; sort by id or at; paging, Link and X-Total-Count", async () => {
    const all = await events();
    const total = await count();
    expect(all.length).toBe(total);
    const ids = all.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const ascending = await events("?sort=id,asc");
    expect(ascending.map((e) => e.id)).toEqual([...ids].reverse());
    const byAt = await events("?sort=at,desc");
    expect(byAt.length).toBe(total);
    const page = await call("GET", "/audit-event?page=1&size=2");
    expect(page.headers.get("x-total-count")).toBe(String(total));
    expect(page.headers.get("link")).toContain('rel="next"');
    expect(((await page.json()) as Event[]).map((e) => e.id)).toEqual(ids.slice(2, 4));
    await expectProblem(
      await t.call("GET", "/audit-event?sort=action", { token: admin.token }),
      400,
      "VALIDATION_FAILED",
    );
  });

  test("filters: actor (uuid or e-mail), action exact or prefix, target, time range; count agrees", async () => {
    const all = await events();
    const check = async (query: string, keep: (e: Event) => boolean) => {
      const expected = all.filter(keep).map((e) => e.id);
      expect(expected.length).toBeGreaterThan(0);
      expect((await events(query)).map((e) => e.id)).toEqual(expected);
      expect(await count(query)).toBe(expected.length);
    };
    await check(`?actor=${admin.uuid}`, (e) => e.actor.uuid === admin.uuid);
    await check(
      `?actor=${encodeURIComponent(admin.email.toUpperCase())}`,
      (e) => e.actor.email === admin.email,
    );
    await check("?action=book.update", (e) => e.action === "book.update");
    await check("?action=book.*", (e) => e.action.startsWith("book."));
    const someBook = all.find((e) => e.target.type === "book")!;
    await check(
      `?targetType=book&targetId=${someBook.target.id}`,
      (e) => e.target.type === "book" && e.target.id === someBook.target.id,
    );
    await check("?targetType=apk", (e) => e.target.type === "apk");
    const at = someBook.at;
    await check(`?from=${at}&to=${at}`, (e) => e.at === at);
    expect(await count("?action=nothing.*")).toBe(0);
    expect(await count("?from=2099-01-01T00:00:00Z")).toBe(0);
    for (const bad of ["?action=book", "?action=BOOK.*", "?from=yesterday", "?targetType=Book!"])
      await expectProblem(
        await t.call("GET", `/audit-event${bad}`, { token: admin.token }),
        400,
        "VALIDATION_FAILED",
      );
  });

  test("one event by id, as JSON and HAL; 404 for none", async () => {
    const [newest] = await events("?size=1");
    const one = await call("GET", `/audit-event/${newest!.id}`);
    expect(await one.json()).toEqual(newest);
    const hal = await call("GET", `/audit-event/${newest!.id}`, {
      headers: { Accept: "application/hal+json" },
    });
    expect(((await hal.json()) as { _links: { self: { href: string } } })._links.self.href).toBe(
      `/audit-event/${newest!.id}`,
    );
    const list = await call("GET", "/audit-event?size=2", { headers: { Accept: "application/hal+json" } });
    const body = (await list.json()) as { _embedded: { auditEvents: unknown[] }; page: { size: number } };
    expect(body._embedded.auditEvents.length).toBe(2);
    expect(body.page.size).toBe(2);
    await expectProblem(await t.call("GET", "/audit-event/999999", { token: admin.token }), 404, "NOT_FOUND");
  });

  test("a 10,000-code batch is one event, with its count", async () => {
    const bookId = await newBook();
    const before = await count();
    const response = await call("POST", "/activation-qr-code/batch", { json: { bookId, quantity: 10_000 } });
    const [first] = await json<{ batchId: number }[]>(response);
    expect(await count()).toBe(before + 1);
    const [event] = await events("?size=1");
    expect(event).toMatchObject({ action: "batch.create", target: { type: "batch", id: first!.batchId } });
    expect(event!.changes).toMatchObject({ codes: [null, 10_000] });
  }, 60_000);

  test("a whole log longer than a chunk is streamed newest first, every event once", async () => {
    const at = new Date("2026-11-21T09:00:00.000Z");
    const rows = Array.from({ length: 1_500 }, (_, i) => ({
      at: new Date(at.getTime() + i),
      actorUuid: null,
      actorEmail: null,
      actorVia: "system",
      action: "book.update",
      targetType: "book",
      targetId: String(i),
      changes: "{}",
      requestId: null,
      client: null,
    }));
    for (let i = 0; i < rows.length; i += 500) await insertAuditEvents(t.deps.db, rows.slice(i, i + 500));
    const total = await count();
    const response = await call("GET", "/audit-event");
    expect(response.headers.get("x-total-count")).toBe(String(total));
    const ids = ((await response.json()) as Event[]).map((e) => e.id);
    expect(ids.length).toBe(total);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(total);
  });

  test("admin only", async () => {
    for (const path of ["/audit-event", "/audit-event/count", "/audit-event/1"])
      await expectProblem(await t.call("GET", path, { token: reader.token }), 403, "FORBIDDEN");
  });
});
