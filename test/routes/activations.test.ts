import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import type { ErrorCode } from "../../src/lib/problems";
import {
  Activation,
  ActivationList,
  ActivationResource,
} from "../../src/routes/activations/activations.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const Activations = z.array(Activation);
type Caller = { token: string; uuid: string };

/** Shared by the suites below: a book, and QR codes made through the API. */
async function setUp(t: TestApp) {
  const admin = await t.admin();
  const makeBook = async (title: string) =>
    (await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title } }), Book)).id;
  const makeCode = async (json: Record<string, unknown>) => {
    const response = await t.call("POST", "/activation-qr-code", { token: admin.token, json });
    expect(response.status).toBe(201);
    return await bodyAs(response, ActivationQrCode);
  };
  const qrCode = async (id: number) =>
    bodyAs(await t.call("GET", `/activation-qr-code/${id}`, { token: admin.token }), ActivationQrCode);
  return { admin, makeBook, makeCode, qrCode };
}

describe("activations (admin CRUD, owner reads)", () => {
  let t: TestApp;
  let admin: Caller;
  let reader: Caller;
  let other: Caller;
  let bookA: number;
  let bookB: number;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  beforeAll(async () => {
    t = await createTestApp();
    ctx = await setUp(t);
    admin = ctx.admin;
    reader = await t.user();
    other = await t.user();
    bookA = await ctx.makeBook("A");
    bookB = await ctx.makeBook("B");
  });
  afterAll(() => t.close());

  const create = async (json: Record<string, unknown>) => {
    const response = await t.call("POST", "/activation", { token: admin.token, json });
    expect(response.status).toBe(201);
    const activation = await bodyAs(response, Activation);
    expect(response.headers.get("location")).toBe(`/activation/${activation.id}`);
    return activation;
  };

  test("create answers 201 with the activation; a duplicate (user, book) is 409 CONFLICT", async () => {
    const activation = await create({ bookId: bookA, userUuid: reader.uuid.toUpperCase() });
    expect(activation).toMatchObject({
      bookId: bookA,
      userUuid: reader.uuid,
      qrCodeId: null,
      createdAt: "2026-11-21T10:00:00.000Z",
    });
    const duplicate = await t.call("POST", "/activation", {
      token: admin.token,
      json: { bookId: bookA, userUuid: reader.uuid },
    });
    await expectProblem(duplicate, 409, "CONFLICT");
  });

  test("bad input: unknown book, not a uuid, missing fields → 400 naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ bookId: 987654, userUuid: reader.uuid }, "bookId"],
      [{ bookId: bookA, userUuid: "not-a-uuid" }, "userUuid"],
      [{ userUuid: reader.uuid }, "bookId"],
      [{ bookId: bookA }, "userUuid"],
    ];
    for (const [json, field] of cases) {
      const response = await t.call("POST", "/activation", { token: admin.token, json });
      const body = await expectProblem(response, 400, "VALIDATION_FAILED");
      expect(body.errors!.map((e: { path: string }) => e.path)).toContain(field);
    }
  });

  test("a userUuid no store user has → 400 VALIDATION_FAILED naming userUuid, on create and update", async () => {
    const stranger = crypto.randomUUID();
    const expectUnknownUser = async (response: Response) => {
      const body = await expectProblem(response, 400, "VALIDATION_FAILED");
      expect(body.errors).toEqual([{ path: "userUuid", message: expect.any(String) }]);
    };
    await expectUnknownUser(
      await t.call("POST", "/activation", {
        token: admin.token,
        json: { bookId: bookB, userUuid: stranger },
      }),
    );
    const existing = await create({ bookId: bookB, userUuid: reader.uuid });
    await expectUnknownUser(
      await t.call("PUT", `/activation/${existing.id}`, {
        token: admin.token,
        json: { bookId: bookB, userUuid: stranger },
      }),
    );
    // Both references unknown: both named.
    const both = await t.call("POST", "/activation", {
      token: admin.token,
      json: { bookId: 987654, userUuid: stranger },
    });
    const problem = await expectProblem(both, 400, "VALIDATION_FAILED");
    const paths = problem.errors!.map((e) => e.path);
    expect(paths.sort()).toEqual(["bookId", "userUuid"]);
    const list = await bodyAs(
      await t.call("GET", `/activation/ofuser/${stranger}`, { token: admin.token }),
      Activations,
    );
    expect(list).toEqual([]);
    const kept = await t.call("GET", `/activation/${existing.id}`, { token: admin.token });
    expect(await bodyAs(kept, Activation)).toEqual(existing);
    await t.call("DELETE", `/activation/${existing.id}`, { token: admin.token });
  });

  test("get: the holder and admins; another user 403; unknown 404", async () => {
    const activation = await create({ bookId: bookB, userUuid: reader.uuid });
    for (const caller of [reader, admin]) {
      const response = await t.call("GET", `/activation/${activation.id}`, { token: caller.token });
      expect(response.status).toBe(200);
      expect(await bodyAs(response, Activation)).toEqual(activation);
    }
    const foreign = await t.call("GET", `/activation/${activation.id}`, { token: other.token });
    await expectProblem(foreign, 403, "FORBIDDEN");
    const missing = await t.call("GET", "/activation/424242", { token: admin.token });
    await expectProblem(missing, 404, "NOT_FOUND");
    expect((await t.call("GET", "/activation/0", { token: admin.token })).status).toBe(400);
    const hal = await t.call("GET", `/activation/${activation.id}`, {
      token: reader.token,
      headers: { Accept: "application/hal+json" },
    });
    const body = await bodyAs(hal, ActivationResource.hal);
    expect(body._links.self.href).toBe(`/activation/${activation.id}`);
    expect(body._links.book.href).toBe(`/book/${bookB}`);
  });

  test("ofuser: the owner and admins; another user 403; a non-canonical uuid 400", async () => {
    const own = await t.call("GET", `/activation/ofuser/${reader.uuid}`, { token: reader.token });
    expect(own.status).toBe(200);
    const list = await bodyAs(own, Activations);
    expect(list.map((a) => a.bookId)).toEqual([bookA, bookB]);
    expect(own.headers.get("x-total-count")).toBe("2");
    const byAdmin = await t.call("GET", `/activation/ofuser/${reader.uuid}?sort=bookId,desc`, {
      token: admin.token,
    });
    expect((await bodyAs(byAdmin, Activations)).map((a) => a.bookId)).toEqual([bookB, bookA]);
    const count = await t.call("GET", `/activation/ofuser/${reader.uuid}/count`, { token: reader.token });
    expect(await count.text()).toBe("2");
    const none = await t.call("GET", `/activation/ofuser/${other.uuid}`, { token: other.token });
    expect(await bodyAs(none, Activations)).toEqual([]);

    for (const path of [`/activation/ofuser/${reader.uuid}`, `/activation/ofuser/${reader.uuid}/count`]) {
      const foreign = await t.call("GET", path, { token: other.token });
      await expectProblem(foreign, 403, "FORBIDDEN");
    }
    for (const uuid of [reader.uuid.toUpperCase(), "not-a-uuid", reader.uuid.replaceAll("-", "")]) {
      for (const suffix of ["", "/count"]) {
        const response = await t.call("GET", `/activation/ofuser/${uuid}${suffix}`, { token: admin.token });
        await expectProblem(response, 400, "VALIDATION_FAILED");
      }
    }
  });

  test("list: whole, sorted, paged, HAL rel activations; count", async () => {
    const all = await t.call("GET", "/activation", { token: admin.token });
    expect(all.status).toBe(200);
    const activations = await bodyAs(all, Activations);
    expect(activations.map((a) => a.id)).toEqual([...activations.map((a) => a.id)].sort((x, y) => x - y));
    const total = activations.length;
    expect(all.headers.get("x-total-count")).toBe(String(total));
    const count = await t.call("GET", "/activation/count", { token: admin.token });
    expect(count.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
    expect(await count.text()).toBe(String(total));

    const desc = await t.call("GET", "/activation?sort=id,desc", { token: admin.token });
    expect((await bodyAs(desc, Activations)).map((a) => a.id)).toEqual(
      activations.map((a) => a.id).reverse(),
    );
    const paged = await t.call("GET", "/activation?page=0&size=1", {
      token: admin.token,
      headers: { Accept: "application/hal+json" },
    });
    const hal = await bodyAs(paged, ActivationList.hal);
    expect(Activations.parse(hal._embedded.activations)).toHaveLength(1);
    expect(hal.page).toEqual({ size: 1, number: 0, totalElements: total, totalPages: total });
    expect(paged.headers.get("link")).toContain('rel="next"');
    const bad = await t.call("GET", "/activation?sort=userUuid", { token: admin.token });
    await expectProblem(bad, 400, "VALIDATION_FAILED");
  });

  test("update replaces book and user; unknown id 404, duplicate 409, unknown book 400", async () => {
    const activation = await create({ bookId: bookA, userUuid: other.uuid });
    t.clock.advance(1000);
    const moved = await t.call("PUT", `/activation/${activation.id}`, {
      token: admin.token,
      json: { bookId: bookB, userUuid: other.uuid },
    });
    expect(moved.status).toBe(200);
    const updated = await bodyAs(moved, Activation);
    expect(updated).toMatchObject({ id: activation.id, bookId: bookB, createdAt: activation.createdAt });
    expect(updated.updatedAt).not.toBe(activation.updatedAt);

    const cases: Array<[string, Record<string, unknown>, number, ErrorCode]> = [
      ["/activation/424242", { bookId: bookA, userUuid: other.uuid }, 404, "NOT_FOUND"],
      [`/activation/${activation.id}`, { bookId: bookA, userUuid: reader.uuid }, 409, "CONFLICT"],
      [`/activation/${activation.id}`, { bookId: 987654, userUuid: other.uuid }, 400, "VALIDATION_FAILED"],
    ];
    for (const [path, json, status, code] of cases) {
      const response = await t.call("PUT", path, { token: admin.token, json });
      await expectProblem(response, status, code);
    }
  });

  test("delete answers the deleted activation; the entitlement ends", async () => {
    const book = await ctx.makeBook("Lent");
    const activation = await create({ bookId: book, userUuid: other.uuid });
    const deleted = await t.call("DELETE", `/activation/${activation.id}`, { token: admin.token });
    expect(deleted.status).toBe(200);
    expect(await bodyAs(deleted, Activation)).toEqual(activation);
    expect((await t.call("GET", `/activation/${activation.id}`, { token: admin.token })).status).toBe(404);
    expect((await t.call("DELETE", `/activation/${activation.id}`, { token: admin.token })).status).toBe(404);
    const { hasActivation } = await import("../../src/services/entitlement");
    expect(await hasActivation(t.deps.db, other.uuid, book)).toBe(false);
  });
});

describe("redeeming a QR code", () => {
  let t: TestApp;
  let ctx: Awaited<ReturnType<typeof setUp>>;
  let admin: Caller;
  beforeAll(async () => {
    t = await createTestApp();
    ctx = await setUp(t);
    admin = ctx.admin;
  });
  afterAll(() => t.close());

  const redeem = (caller: Caller, json: Record<string, unknown>) =>
    t.call("POST", "/activation/by-qr-code", { token: caller.token, json });

  test("201 with a new activation from the code; the code's count goes up", async () => {
    const reader = await t.user();
    const book = await ctx.makeBook("Scanned");
    const qr = await ctx.makeCode({ bookId: book, maxActivations: 2 });
    const response = await redeem(reader, { code: qr.code });
    expect(response.status).toBe(201);
    const activation = await bodyAs(response, Activation);
    expect(activation).toMatchObject({ bookId: book, userUuid: reader.uuid, qrCodeId: qr.id });
    expect(response.headers.get("location")).toBe(`/activation/${activation.id}`);
    expect((await ctx.qrCode(qr.id)).activationCount).toBe(1);
  });

  test("the holder of the book gets 200 with the existing activation; the code is not consumed", async () => {
    const reader = await t.user();
    const book = await ctx.makeBook("Held");
    const first = await ctx.makeCode({ bookId: book, maxActivations: 5 });
    const second = await ctx.makeCode({ bookId: book, maxActivations: 5 });
    const created = await bodyAs(await redeem(reader, { code: first.code }), Activation);
    for (const code of [first.code, second.code]) {
      const again = await redeem(reader, { code });
      expect(again.status).toBe(200);
      expect(again.headers.get("location")).toBeNull();
      expect(await bodyAs(again, Activation)).toEqual(created);
    }
    expect((await ctx.qrCode(first.id)).activationCount).toBe(1);
    expect((await ctx.qrCode(second.id)).activationCount).toBe(0);
    // Even a disabled or used-up code: holding the book is not a failed attempt.
    await t.call("POST", `/activation-qr-code/${second.id}/en-disable`, {
      token: admin.token,
      json: { enabled: false },
    });
    expect((await redeem(reader, { code: second.code })).status).toBe(200);
    // An activation an admin made counts the same.
    const gifted = await ctx.makeBook("Gifted");
    await t.call("POST", "/activation", {
      token: admin.token,
      json: { bookId: gifted, userUuid: reader.uuid },
    });
    const giftCode = await ctx.makeCode({ bookId: gifted });
    const response = await redeem(reader, { code: giftCode.code });
    expect(response.status).toBe(200);
    expect((await bodyAs(response, Activation)).qrCodeId).toBeNull();
    expect((await ctx.qrCode(giftCode.id)).activationCount).toBe(0);
  });

  test("input is normalised: case, dashes, spaces, O/0 and I/L/1", async () => {
    const book = await ctx.makeBook("Typed");
    // Make a code with 0 and 1 in it, to type it back with O, I and L.
    let qr = await ctx.makeCode({ bookId: book, maxActivations: 3 });
    while (!/[01]/.test(qr.code)) qr = await ctx.makeCode({ bookId: book, maxActivations: 3 });
    const typed = [
      qr.code.toLowerCase(),
      ` ${qr.code.replaceAll("-", " ")} `,
      qr.code.replaceAll("-", "").replaceAll("0", "O").replaceAll("1", "l"),
    ];
    for (const code of typed) {
      const response = await redeem(await t.user(), { code });
      expect(response.status).toBe(201);
      expect((await bodyAs(response, Activation)).qrCodeId).toBe(qr.id);
    }
  });

  test("unknown → 404, disabled → 409 QR_CODE_DISABLED, used up → 409 QR_CODE_EXHAUSTED", async () => {
    const reader = await t.user();
    const book = await ctx.makeBook("Refused");
    const unknown = await redeem(reader, { code: "ZZZZ-ZZZZ-ZZZZ-ZZZZ" });
    await expectProblem(unknown, 404, "NOT_FOUND");
    const malformed = await redeem(reader, { code: "not a code" });
    expect(malformed.status).toBe(404);

    const disabled = await ctx.makeCode({ bookId: book, enabled: false });
    const refused = await redeem(reader, { code: disabled.code });
    await expectProblem(refused, 409, "QR_CODE_DISABLED");

    const single = await ctx.makeCode({ bookId: book });
    expect((await redeem(await t.user(), { code: single.code })).status).toBe(201);
    const exhausted = await redeem(reader, { code: single.code });
    await expectProblem(exhausted, 409, "QR_CODE_EXHAUSTED");
    expect((await ctx.qrCode(single.id)).activationCount).toBe(1);

    for (const json of [{}, { code: "" }, { code: 42 }]) {
      const bad = await redeem(reader, json);
      await expectProblem(bad, 400, "VALIDATION_FAILED");
    }
  });

  test("userUuid: admins redeem for someone else; a user naming another user gets 403", async () => {
    const reader = await t.user();
    const friend = await t.user();
    const book = await ctx.makeBook("For a friend");
    const qr = await ctx.makeCode({ bookId: book, maxActivations: 3 });
    const foreign = await redeem(reader, { code: qr.code, userUuid: friend.uuid });
    await expectProblem(foreign, 403, "FORBIDDEN");
    const self = await redeem(reader, { code: qr.code, userUuid: reader.uuid.toUpperCase() });
    expect(self.status).toBe(201);
    expect((await bodyAs(self, Activation)).userUuid).toBe(reader.uuid);
    const byAdmin = await redeem(admin, { code: qr.code, userUuid: friend.uuid });
    expect(byAdmin.status).toBe(201);
    expect((await bodyAs(byAdmin, Activation)).userUuid).toBe(friend.uuid);
    expect((await redeem(admin, { code: qr.code, userUuid: "nope" })).status).toBe(400);
    const stranger = await redeem(admin, { code: qr.code, userUuid: crypto.randomUUID() });
    const problem = await expectProblem(stranger, 400, "VALIDATION_FAILED");
    expect(problem.errors).toEqual([{ path: "userUuid", message: expect.any(String) }]);
    expect((await ctx.qrCode(qr.id)).activationCount).toBe(2);
  });

  test("deleting an activation made from a code frees its slot on the code", async () => {
    const reader = await t.user();
    const book = await ctx.makeBook("Returned");
    const qr = await ctx.makeCode({ bookId: book });
    const activation = await bodyAs(await redeem(reader, { code: qr.code }), Activation);
    expect((await ctx.qrCode(qr.id)).activationCount).toBe(1);
    const deleted = await t.call("DELETE", `/activation/${activation.id}`, { token: admin.token });
    expect(deleted.status).toBe(200);
    expect((await bodyAs(deleted, Activation)).qrCodeId).toBe(qr.id);
    expect((await ctx.qrCode(qr.id)).activationCount).toBe(0);
    const again = await redeem(await t.user(), { code: qr.code });
    expect(again.status).toBe(201);
    expect((await ctx.qrCode(qr.id)).activationCount).toBe(1);
  });
});

describe("redemption throttling", () => {
  test("failed attempts per user: the 11th within the window is 429 with Retry-After", async () => {
    const t = await createTestApp();
    try {
      const ctx = await setUp(t);
      const book = await ctx.makeBook("Guarded");
      const qr = await ctx.makeCode({ bookId: book });
      const guesser = await t.user();
      for (let i = 0; i < 10; i++) {
        const response = await t.call("POST", "/activation/by-qr-code", {
          token: guesser.token,
          json: { code: `ZZZZ-ZZZZ-ZZZZ-ZZ${String(i).padStart(2, "0")}` },
        });
        expect(response.status).toBe(404);
      }
      // Now even a good code is refused for this user, with a hint when to try again.
      const throttled = await t.call("POST", "/activation/by-qr-code", {
        token: guesser.token,
        json: { code: qr.code },
      });
      await expectProblem(throttled, 429, "TOO_MANY_REQUESTS");
      const retryAfter = Number(throttled.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect((await ctx.qrCode(qr.id)).activationCount).toBe(0);
      // Others are not affected, and successes are not counted.
      const honest = await t.user();
      expect(
        (await t.call("POST", "/activation/by-qr-code", { token: honest.token, json: { code: qr.code } }))
          .status,
      ).toBe(201);
      // After the window the guesser may try again.
      t.clock.advance(15 * 60_000);
      const later = await t.call("POST", "/activation/by-qr-code", {
        token: guesser.token,
        json: { code: qr.code },
      });
      await expectProblem(later, 409, "QR_CODE_EXHAUSTED");
    } finally {
      await t.close();
    }
  });

  test("failed attempts per client address: 50 within the window, whoever makes them", async () => {
    const t = await createTestApp();
    try {
      const ctx = await setUp(t);
      const book = await ctx.makeBook("Guarded too");
      const qr = await ctx.makeCode({ bookId: book, enabled: false });
      // Five users with ten failures each (each within its own limit): 50 from one address.
      const users = await Promise.all(Array.from({ length: 6 }, () => t.user()));
      for (const user of users.slice(0, 5)) {
        for (let i = 0; i < 10; i++) {
          const response = await t.call("POST", "/activation/by-qr-code", {
            token: user.token,
            json: { code: qr.code },
          });
          await expectProblem(response, 409, "QR_CODE_DISABLED");
        }
      }
      const fresh = users[5]!;
      const throttled = await t.call("POST", "/activation/by-qr-code", {
        token: fresh.token,
        json: { code: qr.code },
      });
      expect(throttled.status).toBe(429);
      expect(throttled.headers.get("retry-after")).not.toBeNull();
    } finally {
      await t.close();
    }
  });
});
