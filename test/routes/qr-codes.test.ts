import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type SQL, sql } from "drizzle-orm";
import QRCode from "qrcode";
import { z } from "zod";
import { queuedWrite } from "../../src/db/transaction";
import { Activation } from "../../src/routes/activations/activations.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { QrCodeBatchList } from "../../src/routes/qr-code-batches/qr-code-batches.schemas";
import {
  ActivationQrCode,
  NullActivations,
  NullActivationsResource,
  QrCodeList,
  type QrCodeResource,
} from "../../src/routes/qr-codes/qr-codes.schemas";
import { isCanonicalActivationCode } from "../../src/services/activation-code";
import { testDialect } from "../helpers/databases";
import { decodeQr, pngPixels, pngSize, renderSvg } from "../helpers/oracles";
import { requireTool } from "../helpers/requires";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const QrCodes = z.array(ActivationQrCode);
// The symbols are read back by real outside tools; only the tests that do so need them.
const hasZbar = requireTool("zbarimg", "zbar-tools");
const hasChromium = requireTool("chromium", "chromium");

describe("activation QR codes", () => {
  let t: TestApp;
  let admin: { token: string };
  let reader: { token: string; uuid: string };
  let bookId: number;
  let otherBookId: number;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
    const makeBook = async (title: string) =>
      (await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title } }), Book)).id;
    bookId = await makeBook("Coded");
    otherBookId = await makeBook("Other");
  });
  afterAll(() => t.close());

  const create = async (json: Record<string, unknown>) => {
    const response = await t.call("POST", "/activation-qr-code", { token: admin.token, json });
    expect(response.status).toBe(201);
    return await bodyAs(response, ActivationQrCode);
  };

  test("create answers 201 and Location with a server-made code and the defaults", async () => {
    const response = await t.call("POST", "/activation-qr-code", {
      token: admin.token,
      json: { bookId, label: "  Review copy  ", code: "AAAA-AAAA-AAAA-AAAA" },
    });
    expect(response.status).toBe(201);
    const qr = await bodyAs(response, ActivationQrCode);
    expect(response.headers.get("location")).toBe(`/activation-qr-code/${qr.id}`);
    expect(qr).toMatchObject({
      bookId,
      batchId: null,
      enabled: true,
      maxActivations: 1,
      activationCount: 0,
      label: "Review copy",
      expiresAt: null,
      createdAt: "2026-11-21T10:00:00.000Z",
    });
    expect(isCanonicalActivationCode(qr.code)).toBe(true);
    expect(qr.code).not.toBe("AAAA-AAAA-AAAA-AAAA");
    const fetched = await t.call("GET", `/activation-qr-code/${qr.id}`, { token: admin.token });
    expect(await bodyAs(fetched, ActivationQrCode)).toEqual(qr);
    const disabled = await create({ bookId, enabled: false, maxActivations: 1_000_000 });
    expect(disabled).toMatchObject({ enabled: false, maxActivations: 1_000_000, label: null });
  });

  test("bad input is VALIDATION_FAILED naming the field; an unknown book is one too", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "bookId"],
      [{ bookId: 987654 }, "bookId"],
      [{ bookId, maxActivations: 0 }, "maxActivations"],
      [{ bookId, maxActivations: 1_000_001 }, "maxActivations"],
      [{ bookId, maxActivations: 1.5 }, "maxActivations"],
      [{ bookId, label: "x".repeat(201) }, "label"],
      [{ bookId, enabled: "yes" }, "enabled"],
    ];
    for (const [json, field] of cases) {
      const response = await t.call("POST", "/activation-qr-code", { token: admin.token, json });
      const body = await expectProblem(response, 400, "VALIDATION_FAILED");
      expect(body.errors!.map((e: { path: string }) => e.path)).toContain(field);
    }
    const notObject = await t.call("POST", "/activation-qr-code", { token: admin.token, json: [1] });
    await expectProblem(notObject, 400, "INVALID_DEFINITION");
  });

  test("get: bad id → 400, unknown → 404", async () => {
    expect((await t.call("GET", "/activation-qr-code/abc", { token: admin.token })).status).toBe(400);
    const missing = await t.call("GET", "/activation-qr-code/424242", { token: admin.token });
    await expectProblem(missing, 404, "NOT_FOUND");
  });

  test("en-disable switches the code and answers it", async () => {
    const qr = await create({ bookId });
    t.clock.advance(1000);
    const off = await t.call("POST", `/activation-qr-code/${qr.id}/en-disable`, {
      token: admin.token,
      json: { enabled: false },
    });
    expect(off.status).toBe(200);
    const disabled = await bodyAs(off, ActivationQrCode);
    expect(disabled.enabled).toBe(false);
    expect(disabled.updatedAt).not.toBe(qr.updatedAt);
    const on = await t.call("POST", `/activation-qr-code/${qr.id}/en-disable`, {
      token: admin.token,
      json: { enabled: true },
    });
    expect((await bodyAs(on, ActivationQrCode)).enabled).toBe(true);
    const bad = await t.call("POST", `/activation-qr-code/${qr.id}/en-disable`, {
      token: admin.token,
      json: {},
    });
    await expectProblem(bad, 400, "VALIDATION_FAILED");
    const missing = await t.call("POST", "/activation-qr-code/424242/en-disable", {
      token: admin.token,
      json: { enabled: false },
    });
    expect(missing.status).toBe(404);
  });

  test("batch: up to 10,000 distinct codes at once, expiresAt stored", async () => {
    const response = await t.call("POST", "/activation-qr-code/batch", {
      token: admin.token,
      json: {
        bookId: otherBookId,
        quantity: 10_000,
        maxActivations: 3,
        label: "Print run",
        expiresAt: "2027-12-31T23:59:59+01:00",
      },
    });
    expect(response.status).toBe(201);
    const codes = await bodyAs(response, QrCodes);
    expect(codes).toHaveLength(10_000);
    expect(new Set(codes.map((qr) => qr.code)).size).toBe(10_000);
    expect(codes.every((qr) => isCanonicalActivationCode(qr.code))).toBe(true);
    // One print run: every code names the same batch record.
    expect(new Set(codes.map((qr) => qr.batchId)).size).toBe(1);
    expect(codes[0]!.batchId).toBeNumber();
    expect(codes[0]).toMatchObject({
      bookId: otherBookId,
      maxActivations: 3,
      activationCount: 0,
      enabled: true,
      label: "Print run",
      expiresAt: "2027-12-31T22:59:59.000Z",
    });
    const count = await t.call("GET", `/activation-qr-code/ofbook/${otherBookId}/count`, {
      token: admin.token,
    });
    expect(await count.text()).toBe("10000");
  });

  test("batch answers like a list: X-Total-Count, and under HAL rel activationQrCodes with _links", async () => {
    const plain = await t.call("POST", "/activation-qr-code/batch", {
      token: admin.token,
      json: { bookId: otherBookId, quantity: 3 },
    });
    expect(plain.status).toBe(201);
    expect(plain.headers.get("x-total-count")).toBe("3");
    const codes = await bodyAs(plain, QrCodes);
    expect(codes).toHaveLength(3);
    expect(codes.some((qr: object) => "_links" in qr)).toBe(false);

    const response = await t.call("POST", "/activation-qr-code/batch", {
      token: admin.token,
      json: { bookId: otherBookId, quantity: 2 },
      headers: { Accept: "application/hal+json" },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    expect(response.headers.get("x-total-count")).toBe("2");
    const hal = await bodyAs(response, QrCodeList.hal);
    const embedded = hal._embedded.activationQrCodes!;
    expect(embedded).toHaveLength(2);
    embedded.forEach((qr) => {
      expect(qr._links.self.href).toBe(`/activation-qr-code/${qr.id}`);
      expect(qr._links.book.href).toBe(`/book/${otherBookId}`);
    });
    expect(hal._links.self.href).toBe("/activation-qr-code/batch");
  });

  test("batch: bounds of quantity and a missing book", async () => {
    for (const [json, field] of [
      [{ bookId, quantity: 0 }, "quantity"],
      [{ bookId, quantity: 10_001 }, "quantity"],
      [{ bookId }, "quantity"],
      [{ bookId, quantity: 2, expiresAt: "tomorrow" }, "expiresAt"],
      [{ bookId: 987654, quantity: 2 }, "bookId"],
    ] as const) {
      const response = await t.call("POST", "/activation-qr-code/batch", { token: admin.token, json });
      const body = await expectProblem(response, 400, "VALIDATION_FAILED");
      expect(body.errors!.map((e: { path: string }) => e.path)).toContain(field);
    }
  });

  test("batch: all or nothing — a failure in a later chunk leaves no code behind", async () => {
    const { db } = t.deps;
    // Raw DDL: the SQLite builder runs it with run(), the Postgres one with execute().
    type Ddl = { run(query: SQL): unknown; execute(query: SQL): Promise<unknown> };
    const ddlOf = (tx: typeof db) => tx.orm as unknown as Ddl;
    const book = await bodyAs(
      await t.call("POST", "/book", { token: admin.token, json: { title: "Half" } }),
      Book,
    );
    // A trigger that refuses the 700th code of this book: the first chunk of 500 has been inserted by then.
    if (testDialect === "sqlite") {
      await queuedWrite(db, async (tx) =>
        ddlOf(tx).run(
          sql.raw(`CREATE TRIGGER refuse_700 BEFORE INSERT ON activation_qr_code
          WHEN NEW.book_id = ${book.id} AND (SELECT count(*) FROM activation_qr_code WHERE book_id = ${book.id}) >= 699
          BEGIN SELECT RAISE(ABORT, 'refused by test'); END`),
        ),
      );
    } else {
      await ddlOf(db).execute(
        sql.raw(`CREATE FUNCTION refuse_700() RETURNS trigger AS $$ BEGIN
          IF NEW.book_id = ${book.id} AND (SELECT count(*) FROM activation_qr_code WHERE book_id = ${book.id}) >= 699
          THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`),
      );
      await ddlOf(db).execute(
        sql.raw(
          "CREATE TRIGGER refuse_700 BEFORE INSERT ON activation_qr_code FOR EACH ROW EXECUTE FUNCTION refuse_700()",
        ),
      );
    }
    const response = await t.call("POST", "/activation-qr-code/batch", {
      token: admin.token,
      json: { bookId: book.id, quantity: 1000 },
    });
    await expectProblem(response, 500, "INTERNAL_ERROR");
    const count = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/count`, { token: admin.token });
    expect(await count.text()).toBe("0");
    // Nor a batch record.
    const batches = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/batches`, {
      token: admin.token,
    });
    expect(await bodyAs(batches, QrCodeBatchList.schema)).toEqual([]);
    const small = await t.call("POST", "/activation-qr-code/batch", {
      token: admin.token,
      json: { bookId: book.id, quantity: 600 },
    });
    expect(small.status).toBe(201);
    expect(await bodyAs(small, QrCodes)).toHaveLength(600);
    const made = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/batches`, { token: admin.token });
    expect((await bodyAs(made, QrCodeBatchList.schema)).map((batch) => batch.codes)).toEqual([600]);
  });

  test("lists: whole, sorted, paged, HAL rel activationQrCodes; counts", async () => {
    const book = await bodyAs(
      await t.call("POST", "/book", { token: admin.token, json: { title: "Listed" } }),
      Book,
    );
    const made = [];
    for (const enabled of [true, false, true]) {
      t.clock.advance(1000);
      made.push(await create({ bookId: book.id, enabled }));
    }
    const ofBook = await t.call("GET", `/activation-qr-code/ofbook/${book.id}`, { token: admin.token });
    expect(ofBook.status).toBe(200);
    expect(ofBook.headers.get("x-total-count")).toBe("3");
    expect((await bodyAs(ofBook, QrCodes)).map((qr) => qr.id)).toEqual(made.map((qr) => qr.id));

    const sorted = await t.call(
      "GET",
      `/activation-qr-code/ofbook/${book.id}?sort=enabled&sort=createdAt,desc`,
      {
        token: admin.token,
      },
    );
    expect((await bodyAs(sorted, QrCodes)).map((qr) => qr.id)).toEqual([
      made[1]!.id,
      made[2]!.id,
      made[0]!.id,
    ]);

    const paged = await t.call("GET", `/activation-qr-code/ofbook/${book.id}?page=1&size=2`, {
      token: admin.token,
      headers: { Accept: "application/hal+json" },
    });
    expect(paged.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    const hal = await bodyAs(paged, QrCodeList.hal);
    expect(hal._embedded.activationQrCodes).toHaveLength(1);
    expect(hal._embedded.activationQrCodes![0]!.id).toBe(made[2]!.id);
    expect(hal._embedded.activationQrCodes![0]!._links.qr.href).toBe(`/activation-qr-code/${made[2]!.id}/qr`);
    expect(hal.page).toEqual({ size: 2, number: 1, totalElements: 3, totalPages: 2 });

    const all = await t.call("GET", "/activation-qr-code?size=5&sort=bookId,desc", { token: admin.token });
    expect(all.status).toBe(200);
    const total = Number(all.headers.get("x-total-count"));
    expect(await bodyAs(all, QrCodes)).toHaveLength(5);
    const count = await t.call("GET", "/activation-qr-code/count", { token: admin.token });
    expect(count.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
    expect(Number(await count.text())).toBe(total);
    expect(total).toBeGreaterThan(10_000);

    for (const query of ["?sort=code", "?sort=id,up"]) {
      const response = await t.call("GET", `/activation-qr-code${query}`, { token: admin.token });
      await expectProblem(response, 400, "VALIDATION_FAILED");
    }
    for (const path of ["/activation-qr-code/ofbook/424242", "/activation-qr-code/ofbook/424242/count"]) {
      const response = await t.call("GET", path, { token: admin.token });
      await expectProblem(response, 404, "NOT_FOUND");
    }
  });

  test("null-activations: the book's codes no activation has been made from", async () => {
    const book = await bodyAs(
      await t.call("POST", "/book", { token: admin.token, json: { title: "Unused" } }),
      Book,
    );
    const [used, partly, unused] = [
      await create({ bookId: book.id }),
      await create({ bookId: book.id, maxActivations: 5 }),
      await create({ bookId: book.id, enabled: false }),
    ];
    const other = await t.user();
    for (const [qr, user] of [
      [used, reader],
      [partly, other],
    ] as const) {
      const redeemed = await t.call("POST", "/activation/by-qr-code", {
        token: user.token,
        json: { code: qr!.code },
      });
      expect(redeemed.status).toBe(201);
    }
    const response = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/null-activations`, {
      token: admin.token,
    });
    expect(response.status).toBe(200);
    const body = await bodyAs(response, NullActivations);
    expect(body.bookId).toBe(book.id);
    expect(body.count).toBe(1);
    expect(body.qrCodes.map((qr) => qr.id)).toEqual([unused!.id]);

    const missing = await t.call("GET", "/activation-qr-code/ofbook/424242/null-activations", {
      token: admin.token,
    });
    expect(missing.status).toBe(404);
  });

  test("null-activations under HAL: the answer and each of its codes carry _links", async () => {
    const book = await bodyAs(
      await t.call("POST", "/book", { token: admin.token, json: { title: "Linked" } }),
      Book,
    );
    const [first, second] = [await create({ bookId: book.id }), await create({ bookId: book.id })];
    const path = `/activation-qr-code/ofbook/${book.id}/null-activations`;
    const plain = await bodyAs(await t.call("GET", path, { token: admin.token }), NullActivations);
    expect(NullActivations.strict().parse(plain)).toEqual(plain);
    expect(plain.qrCodes.some((qr: object) => "_links" in qr)).toBe(false);

    const response = await t.call("GET", path, {
      token: admin.token,
      headers: { Accept: "application/hal+json" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    const hal = await bodyAs(response, NullActivationsResource.hal);
    expect(hal).toMatchObject({ bookId: book.id, count: 2 });
    expect(hal._links.self.href).toBe(`${path}`);
    expect(hal._links.book.href).toBe(`/book/${book.id}`);
    // The schema holds each nested code to its HAL form; its type stays the plain code's.
    const qrCodes = hal.qrCodes as Array<z.output<typeof QrCodeResource.hal>>;
    expect(qrCodes.map((qr) => qr._links.self.href)).toEqual([
      `/activation-qr-code/${first.id}`,
      `/activation-qr-code/${second.id}`,
    ]);
    expect(qrCodes[0]!._links.qr.href).toBe(`/activation-qr-code/${first.id}/qr`);
  });

  test("null-activations: a code whose activation was deleted was still redeemed once", async () => {
    const book = await bodyAs(
      await t.call("POST", "/book", { token: admin.token, json: { title: "Returned" } }),
      Book,
    );
    const [returned, fresh] = [await create({ bookId: book.id }), await create({ bookId: book.id })];
    const unused = async () => {
      const response = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/null-activations`, {
        token: admin.token,
      });
      return await bodyAs(response, NullActivations);
    };
    expect((await unused()).count).toBe(2);
    const redeemed = await t.call("POST", "/activation/by-qr-code", {
      token: (await t.user()).token,
      json: { code: returned.code },
    });
    expect(redeemed.status).toBe(201);
    const deleted = await t.call("DELETE", `/activation/${(await bodyAs(redeemed, Activation)).id}`, {
      token: admin.token,
    });
    expect(deleted.status).toBe(200);
    // The slot is back on the code, yet an activation was made from it.
    const code = await bodyAs(
      await t.call("GET", `/activation-qr-code/${returned.id}`, { token: admin.token }),
      ActivationQrCode,
    );
    expect(ActivationQrCode.strict().parse(code).activationCount).toBe(0);
    const after = await unused();
    expect(after.count).toBe(1);
    expect(after.qrCodes.map((qr) => qr.id)).toEqual([fresh.id]);
    // The mark is internal: the published shape is unchanged everywhere.
    for (const qr of after.qrCodes) expect(ActivationQrCode.strict().parse(qr)).toEqual(qr);
  });

  test.if(hasZbar)(
    "the QR symbol: a PNG of the requested width that decodes to the code; ETag and 304",
    async () => {
      const qr = await create({ bookId });
      const response = await t.call("GET", `/activation-qr-code/${qr.id}/qr`, { token: admin.token });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      const etag = response.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      const png = new Uint8Array(await response.arrayBuffer());
      expect(pngSize(png)).toEqual({ width: 512, height: 512 });
      expect(decodeQr(png)).toBe(qr.code);
      // Module by module the symbol is qrcode's at error correction M, inside a quiet zone of 4 modules.
      const symbol = QRCode.create(qr.code, { errorCorrectionLevel: "M" });
      const modules = symbol.modules.size;
      const scale = 512 / (modules + 8);
      const image = pngPixels(png);
      for (let row = -4; row < modules + 4; row++) {
        for (let col = -4; col < modules + 4; col++) {
          const inside = row >= 0 && col >= 0 && row < modules && col < modules;
          const expected = inside && symbol.modules.get(row, col) === 1;
          const [x, y] = [Math.floor((col + 4.5) * scale), Math.floor((row + 4.5) * scale)];
          expect(image.dark(x, y)).toBe(expected);
        }
      }

      const again = await t.call("GET", `/activation-qr-code/${qr.id}/qr`, {
        token: admin.token,
        headers: { "If-None-Match": etag! },
      });
      expect(again.status).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(await again.text()).toBe("");

      const small = await t.call("GET", `/activation-qr-code/${qr.id}/qr?size=64`, {
        token: admin.token,
        headers: { "If-None-Match": etag! },
      });
      expect(small.status).toBe(200);
      expect(small.headers.get("etag")).not.toBe(etag);
      expect(pngSize(new Uint8Array(await small.arrayBuffer())).width).toBe(64);
      const large = await t.call("GET", `/activation-qr-code/${qr.id}/qr?size=2048`, { token: admin.token });
      const largePng = new Uint8Array(await large.arrayBuffer());
      expect(pngSize(largePng).width).toBe(2048);
      expect(decodeQr(largePng)).toBe(qr.code);

      for (const size of ["63", "2049", "big"]) {
        const bad = await t.call("GET", `/activation-qr-code/${qr.id}/qr?size=${size}`, {
          token: admin.token,
        });
        await expectProblem(bad, 400, "VALIDATION_FAILED");
      }
      expect((await t.call("GET", "/activation-qr-code/424242/qr", { token: admin.token })).status).toBe(404);
    },
  );

  test.if(hasZbar && hasChromium)(
    "qr.svg: a vector symbol with its quiet zone that a browser renders to the code; ETag and 304",
    async () => {
      const qr = await create({ bookId });
      const response = await t.call("GET", `/activation-qr-code/${qr.id}/qr.svg`, { token: admin.token });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/svg+xml");
      expect(response.headers.get("content-disposition")).toBe(`inline; filename="qr-${qr.code}.svg"`);
      const etag = response.headers.get("etag");
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      const png = await t.call("GET", `/activation-qr-code/${qr.id}/qr`, { token: admin.token });
      expect(png.headers.get("etag")).not.toBe(etag);
      const svg = await response.text();
      // Vectors only: no embedded raster, no script.
      expect(svg).not.toMatch(/<image|<script|data:/i);
      const symbol = QRCode.create(qr.code, { errorCorrectionLevel: "M" });
      const modules = symbol.modules.size;
      const side = modules + 8;
      expect(svg).toContain(`viewBox="0 0 ${side} ${side}"`);
      const pixelsPerModule = 8;
      const image = renderSvg(svg, side * pixelsPerModule, side * pixelsPerModule);
      expect(decodeQr(image)).toBe(qr.code);
      // Module by module it is the PNG's symbol, quiet zone of 4 light modules included.
      const pixels = pngPixels(image);
      expect(pixels.width).toBe(side * pixelsPerModule);
      for (let row = -4; row < modules + 4; row++) {
        for (let col = -4; col < modules + 4; col++) {
          const inside = row >= 0 && col >= 0 && row < modules && col < modules;
          const expected = inside && symbol.modules.get(row, col) === 1;
          const [x, y] = [(col + 4.5) * pixelsPerModule, (row + 4.5) * pixelsPerModule];
          expect(pixels.dark(x, y)).toBe(expected);
        }
      }

      const again = await t.call("GET", `/activation-qr-code/${qr.id}/qr.svg`, {
        token: admin.token,
        headers: { "If-None-Match": `"other", ${etag}` },
      });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      expect((await t.call("GET", "/activation-qr-code/424242/qr.svg", { token: admin.token })).status).toBe(
        404,
      );
      expect((await t.call("GET", "/activation-qr-code/abc/qr.svg", { token: admin.token })).status).toBe(
        400,
      );
    },
  );

  test.if(hasZbar && hasChromium)(
    "the symbol carries QR_PAYLOAD_TEMPLATE with the code filled in",
    async () => {
      const other = await createTestApp({
        env: { QR_PAYLOAD_TEMPLATE: "https://books.example.com/redeem?code={code}" },
      });
      try {
        const otherAdmin = await other.admin();
        const book = await bodyAs(
          await other.call("POST", "/book", { token: otherAdmin.token, json: { title: "T" } }),
          Book,
        );
        const created = await other.call("POST", "/activation-qr-code", {
          token: otherAdmin.token,
          json: { bookId: book.id },
        });
        const qr = await bodyAs(created, ActivationQrCode);
        const response = await other.call("GET", `/activation-qr-code/${qr.id}/qr?size=400`, {
          token: otherAdmin.token,
        });
        const png = new Uint8Array(await response.arrayBuffer());
        expect(decodeQr(png)).toBe(`https://books.example.com/redeem?code=${qr.code}`);
        const svg = await other.call("GET", `/activation-qr-code/${qr.id}/qr.svg`, {
          token: otherAdmin.token,
        });
        const side =
          QRCode.create(`https://books.example.com/redeem?code=${qr.code}`, { errorCorrectionLevel: "M" })
            .modules.size + 8;
        expect(decodeQr(renderSvg(await svg.text(), side * 8, side * 8))).toBe(
          `https://books.example.com/redeem?code=${qr.code}`,
        );
        // The template takes part in the validator: the same code and size under another template differ.
        const plain = await t.call(
          "GET",
          `/activation-qr-code/${(await create({ bookId })).id}/qr?size=400`,
          {
            token: admin.token,
          },
        );
        expect(plain.headers.get("etag")).not.toBe(response.headers.get("etag"));
      } finally {
        await other.close();
      }
    },
  );
});
