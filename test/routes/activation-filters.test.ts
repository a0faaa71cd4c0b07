// GET /activation's filters and its count's (API.md §10): book, user, source (a redeemed code, a
// shop order alone, by hand: as the activation records its origin), creation time; and the look-up
// of a code by its text, GET /activation-qr-code?code=, normalised as redemption does.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "@hono/zod-openapi";
import { withTransaction } from "../../src/db/transaction";
import { insertShopActivation } from "../../src/repositories/activations";
import { Activation } from "../../src/routes/activations/activations.schemas";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const Activations = z.array(Activation);
const Codes = z.array(ActivationQrCode);

describe("activation filters and the code look-up", () => {
  let t: TestApp;
  let admin: { token: string };
  let reader: { token: string; uuid: string };
  let other: { token: string; uuid: string };
  let bookA: number;
  let bookB: number;
  let code: { id: number; code: string };
  const ids = { code: 0, order: 0, manual: 0, late: 0 };

  const json = async (method: string, path: string, body?: unknown, token = admin.token) => {
    const response = await t.call(method, path, { token, json: body });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as { id: number; code: string };
  };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
    other = await t.user();
    bookA = (await json("POST", "/book", { title: "A" })).id;
    bookB = (await json("POST", "/book", { title: "B" })).id;
    code = await json("POST", "/activation-qr-code", { bookId: bookA });
    // By code (the reader), by hand (the other user, book A), by a shop order (the reader, book B).
    ids.code = (await json("POST", "/activation/by-qr-code", { code: code.code }, reader.token)).id;
    ids.manual = (await json("POST", "/activation", { bookId: bookA, userUuid: other.uuid })).id;
    const shop = await withTransaction(t.deps.db, (tx) =>
      insertShopActivation(tx, { bookId: bookB, userUuid: reader.uuid, shopOrderId: 727 }, t.clock.now()),
    );
    ids.order = shop!.id;
    // A day later, by hand: the other user gets book B.
    t.clock.set(new Date("2026-11-22T10:00:00.000Z"));
    ids.late = (await json("POST", "/activation", { bookId: bookB, userUuid: other.uuid })).id;
  });
  afterAll(() => t.close());

  const list = async (query: string) => {
    const response = await t.call("GET", `/activation?${query}`, { token: admin.token });
    expect(response.status).toBe(200);
    const count = await t.call("GET", `/activation/count?${query}`, { token: admin.token });
    expect(count.status).toBe(200);
    const ids = (await bodyAs(response, Activations)).map((activation) => activation.id);
    // The count twin takes the same filters and agrees with the list's total.
    expect(await count.text()).toBe(response.headers.get("X-Total-Count")!);
    expect(Number(response.headers.get("X-Total-Count"))).toBe(ids.length);
    return ids;
  };

  test("source: a redeemed code, a shop order alone, by hand", async () => {
    expect(await list("source=code")).toEqual([ids.code]);
    expect(await list("source=order")).toEqual([ids.order]);
    expect(await list("source=manual")).toEqual([ids.manual, ids.late]);
    expect(await list("")).toEqual([ids.code, ids.manual, ids.order, ids.late]);
  });

  test("book, user and creation time, alone and together", async () => {
    expect(await list(`bookId=${bookA}`)).toEqual([ids.code, ids.manual]);
    expect(await list(`userUuid=${reader.uuid}`)).toEqual([ids.code, ids.order]);
    expect(await list(`userUuid=${other.uuid}&bookId=${bookB}`)).toEqual([ids.late]);
    expect(await list("from=2026-11-22T00:00:00Z")).toEqual([ids.late]);
    expect(await list("to=2026-11-21T23:59:59.999Z")).toEqual([ids.code, ids.manual, ids.order]);
    expect(await list("from=2026-11-21T10:00:00.000Z&to=2026-11-21T10:00:00.000Z&source=manual")).toEqual([
      ids.manual,
    ]);
    expect(await list(`source=manual&bookId=${bookB}&sort=createdAt,desc`)).toEqual([ids.late]);
    expect(await list(`source=code&userUuid=${other.uuid}`)).toEqual([]);
  });

  test("paged with its filters", async () => {
    const response = await t.call("GET", "/activation?source=manual&size=1&page=1", { token: admin.token });
    expect((await bodyAs(response, Activations)).map((a) => a.id)).toEqual([ids.late]);
    expect(response.headers.get("X-Total-Count")).toBe("2");
    expect(response.headers.get("Link")).toContain("source=manual");
  });

  test("a malformed filter is 400 VALIDATION_FAILED, on the list and its count", async () => {
    for (const query of [
      "source=shop",
      "bookId=0",
      "bookId=x",
      "userUuid=3F0D6A1E-2B7C-4C8E-9A51-0D2F6B7E8C91",
      "from=yesterday",
      "to=2026-11-21",
      "from=0000-01-01T00:00:00Z",
    ]) {
      await expectProblem(
        await t.call("GET", `/activation?${query}`, { token: admin.token }),
        400,
        "VALIDATION_FAILED",
      );
      await expectProblem(
        await t.call("GET", `/activation/count?${query}`, { token: admin.token }),
        400,
        "VALIDATION_FAILED",
      );
    }
  });

  test("admins only", async () => {
    await expectProblem(await t.call("GET", "/activation?source=code"), 401, "UNAUTHORIZED");
    await expectProblem(
      await t.call("GET", "/activation?source=code", { token: reader.token }),
      403,
      "FORBIDDEN",
    );
  });

  test("a code found by its text as a reader would type it, or an empty list", async () => {
    const sloppy = code.code.toLowerCase().replaceAll("-", " ").replaceAll("0", "o").replaceAll("1", "l");
    for (const typed of [code.code, sloppy]) {
      const response = await t.call("GET", `/activation-qr-code?code=${encodeURIComponent(typed)}`, {
        token: admin.token,
      });
      expect(response.status).toBe(200);
      expect((await bodyAs(response, Codes)).map((c) => c.id)).toEqual([code.id]);
      expect(response.headers.get("X-Total-Count")).toBe("1");
      const count = await t.call("GET", `/activation-qr-code/count?code=${encodeURIComponent(typed)}`, {
        token: admin.token,
      });
      expect(await count.text()).toBe("1");
    }
    for (const typed of ["0000-0000-0000-0000", "not a code", "UUUU-UUUU-UUUU-UUUU"]) {
      const response = await t.call("GET", `/activation-qr-code?code=${encodeURIComponent(typed)}`, {
        token: admin.token,
      });
      expect(await bodyAs(response, Codes)).toEqual([]);
      expect(response.headers.get("X-Total-Count")).toBe("0");
    }
    const paged = await t.call("GET", `/activation-qr-code?code=${code.code}&page=1&size=1`, {
      token: admin.token,
    });
    expect(await bodyAs(paged, Codes)).toEqual([]);
    expect(paged.headers.get("X-Total-Count")).toBe("1");
  });

  test("the code look-up: 400 for an empty or over-long code, admins only", async () => {
    for (const typed of ["", "x".repeat(65), "a%00b"]) {
      await expectProblem(
        await t.call("GET", `/activation-qr-code?code=${typed}`, { token: admin.token }),
        400,
        "VALIDATION_FAILED",
      );
    }
    await expectProblem(await t.call("GET", `/activation-qr-code?code=${code.code}`), 401, "UNAUTHORIZED");
    await expectProblem(
      await t.call("GET", `/activation-qr-code?code=${code.code}`, { token: reader.token }),
      403,
      "FORBIDDEN",
    );
  });
});
