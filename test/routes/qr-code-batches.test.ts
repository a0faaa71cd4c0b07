// Print runs: batch records and their counts, switching a whole batch, the CSV export, expiry at
// redemption, and the printable PDF read back by real outside tools — poppler's pdftoppm,
// pdfinfo, pdfimages and pdftotext (poppler-utils) and zbarimg (zbar-tools).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { Book } from "../../src/routes/books/books.schemas";
import { QrCodeBatch, QrCodeBatchList } from "../../src/routes/qr-code-batches/qr-code-batches.schemas";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import { readSheet } from "../helpers/oracles";
import { requireTool } from "../helpers/requires";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const QrCodes = z.array(ActivationQrCode);
const Batches = z.array(QrCodeBatch);
// The sheet.pdf tests read the print back with poppler and zbar; the others need no outside tool.
const readsPdf = [
  requireTool(["pdftoppm", "pdfinfo", "pdfimages", "pdftotext"], "poppler-utils"),
  requireTool("zbarimg", "zbar-tools"),
].every(Boolean);

/** RFC 4180 rows of a CSV without quoted line breaks (enough for the export). */
function parseCsv(text: string): string[][] {
  expect(text.endsWith("\r\n")).toBe(true);
  return text
    .slice(0, -2)
    .split("\r\n")
    .map((line) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(,|$)/g)].slice(0, -1).map((m) => m[1]!));
}

describe("QR code batches (print runs)", () => {
  let t: TestApp;
  let admin: { token: string };
  let bookId: number;

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    bookId = (
      await bodyAs(
        await t.call("POST", "/book", { token: admin.token, json: { title: "Die Winterreise" } }),
        Book,
      )
    ).id;
  });
  afterAll(() => t.close());

  const makeBatch = async (json: Record<string, unknown>) => {
    const response = await t.call("POST", "/activation-qr-code/batch", { token: admin.token, json });
    expect(response.status).toBe(201);
    return await bodyAs(response, QrCodes);
  };
  const getBatch = async (id: number) => {
    const response = await t.call("GET", `/activation-qr-code/batch/${id}`, { token: admin.token });
    expect(response.status).toBe(200);
    return await bodyAs(response, QrCodeBatch);
  };
  const redeem = async (code: string) => {
    const reader = await t.user();
    return t.call("POST", "/activation/by-qr-code", { token: reader.token, json: { code } });
  };

  test("POST /activation-qr-code/batch makes a batch record its codes name", async () => {
    const codes = await makeBatch({
      bookId,
      quantity: 5,
      maxActivations: 2,
      label: "  Second print  ",
      expiresAt: "2027-06-30T12:00:00+02:00",
    });
    const batchId = codes[0]!.batchId!;
    expect(batchId).toBeNumber();
    for (const qr of codes) {
      expect(qr).toMatchObject({ batchId, label: "Second print", expiresAt: "2027-06-30T10:00:00.000Z" });
    }
    expect(await getBatch(batchId)).toEqual({
      id: batchId,
      bookId,
      label: "Second print",
      maxActivations: 2,
      expiresAt: "2027-06-30T10:00:00.000Z",
      codes: 5,
      redeemed: 0,
      unused: 5,
      disabled: 0,
      createdAt: "2026-11-21T10:00:00.000Z",
    });
    // A single code is not in any batch.
    const single = await t.call("POST", "/activation-qr-code", { token: admin.token, json: { bookId } });
    expect((await bodyAs(single, ActivationQrCode)).batchId).toBeNull();
    const fetched = await t.call("GET", `/activation-qr-code/${codes[0]!.id}`, { token: admin.token });
    expect((await bodyAs(fetched, ActivationQrCode)).batchId).toBe(batchId);
  });

  test("counts follow redemptions and disabled codes", async () => {
    const codes = await makeBatch({ bookId, quantity: 4, maxActivations: 2 });
    const batchId = codes[0]!.batchId!;
    expect((await redeem(codes[0]!.code)).status).toBe(201);
    expect((await redeem(codes[0]!.code)).status).toBe(201);
    expect((await redeem(codes[1]!.code)).status).toBe(201);
    await t.call("POST", `/activation-qr-code/${codes[3]!.id}/en-disable`, {
      token: admin.token,
      json: { enabled: false },
    });
    expect(await getBatch(batchId)).toMatchObject({ codes: 4, redeemed: 2, unused: 2, disabled: 1 });
  });

  test("a book's batches: a list with X-Total-Count, sort, paging, HAL; 404 for an unknown book", async () => {
    const book = await bodyAs(
      await t.call("POST", "/book", { token: admin.token, json: { title: "Listed" } }),
      Book,
    );
    const ids: number[] = [];
    for (const quantity of [1, 2, 3]) {
      t.clock.advance(1000);
      ids.push((await makeBatch({ bookId: book.id, quantity, label: `Run ${quantity}` }))[0]!.batchId!);
    }
    const response = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/batches`, {
      token: admin.token,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe("3");
    const list = await bodyAs(response, Batches);
    expect(list.map((batch) => [batch.id, batch.codes, batch.label])).toEqual([
      [ids[0]!, 1, "Run 1"],
      [ids[1]!, 2, "Run 2"],
      [ids[2]!, 3, "Run 3"],
    ]);
    const sorted = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/batches?sort=createdAt,desc`, {
      token: admin.token,
    });
    expect((await bodyAs(sorted, Batches)).map((batch) => batch.id)).toEqual([...ids].reverse());
    const paged = await t.call("GET", `/activation-qr-code/ofbook/${book.id}/batches?page=1&size=2`, {
      token: admin.token,
      headers: { Accept: "application/hal+json" },
    });
    expect(paged.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    expect(paged.headers.get("link")).toContain('rel="first"');
    const hal = await bodyAs(paged, QrCodeBatchList.hal);
    const batches = hal._embedded.qrCodeBatches!;
    expect(batches.map((batch) => batch.id)).toEqual([ids[2]!]);
    expect(batches[0]!._links.sheet.href).toBe(`/activation-qr-code/batch/${ids[2]}/sheet.pdf`);
    expect(hal.page).toEqual({ size: 2, number: 1, totalElements: 3, totalPages: 2 });

    const empty = await t.call("POST", "/book", { token: admin.token, json: { title: "No runs" } });
    const none = await t.call("GET", `/activation-qr-code/ofbook/${(await bodyAs(empty, Book)).id}/batches`, {
      token: admin.token,
    });
    expect(await bodyAs(none, Batches)).toEqual([]);
    expect(none.headers.get("x-total-count")).toBe("0");
    for (const [path, status, code] of [
      ["/activation-qr-code/ofbook/424242/batches", 404, "NOT_FOUND"],
      [`/activation-qr-code/ofbook/${book.id}/batches?sort=label`, 400, "VALIDATION_FAILED"],
      ["/activation-qr-code/batch/424242", 404, "NOT_FOUND"],
      ["/activation-qr-code/batch/abc", 400, "VALIDATION_FAILED"],
      ["/activation-qr-code/batch/0", 400, "VALIDATION_FAILED"],
      ["/activation-qr-code/batch/424242/codes.csv", 404, "NOT_FOUND"],
      ["/activation-qr-code/batch/424242/sheet.pdf", 404, "NOT_FOUND"],
    ] as const) {
      const failed = await t.call("GET", path, { token: admin.token });
      await expectProblem(failed, status, code);
    }
  });

  test("fixed `batch` segments win over `{id}`, and `{id}` routes still work beside them", async () => {
    const codes = await makeBatch({ bookId, quantity: 1 });
    const batchId = codes[0]!.batchId!;
    const batch = await t.call("GET", `/activation-qr-code/batch/${batchId}`, { token: admin.token });
    expect((await bodyAs(batch, QrCodeBatch)).id).toBe(batchId);
    const code = await t.call("GET", `/activation-qr-code/${codes[0]!.id}`, { token: admin.token });
    expect((await bodyAs(code, ActivationQrCode)).code).toBe(codes[0]!.code);
    const put = await t.call("PUT", `/activation-qr-code/batch/${batchId}`, { token: admin.token, json: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toContain("GET");
  });

  test("en-disable switches every code of the batch and nothing else", async () => {
    const codes = await makeBatch({ bookId, quantity: 30 });
    const others = await makeBatch({ bookId, quantity: 3 });
    const batchId = codes[0]!.batchId!;
    t.clock.advance(60_000);
    const off = await t.call("POST", `/activation-qr-code/batch/${batchId}/en-disable`, {
      token: admin.token,
      json: { enabled: false },
    });
    expect(off.status).toBe(200);
    expect(await bodyAs(off, QrCodeBatch)).toMatchObject({ id: batchId, codes: 30, disabled: 30 });
    const listed = await bodyAs(
      await t.call("GET", `/activation-qr-code/ofbook/${bookId}`, { token: admin.token }),
      QrCodes,
    );
    const byId = new Map(listed.map((qr) => [qr.id, qr]));
    for (const qr of codes) {
      expect(byId.get(qr.id)).toMatchObject({ enabled: false, updatedAt: t.clock.now().toISOString() });
    }
    for (const qr of others) expect(byId.get(qr.id)!.enabled).toBe(true);
    const refused = await redeem(codes[7]!.code);
    await expectProblem(refused, 409, "QR_CODE_DISABLED");

    const on = await t.call("POST", `/activation-qr-code/batch/${batchId}/en-disable`, {
      token: admin.token,
      json: { enabled: true },
    });
    expect((await bodyAs(on, QrCodeBatch)).disabled).toBe(0);
    expect((await redeem(codes[7]!.code)).status).toBe(201);

    for (const [path, json, status] of [
      [`/activation-qr-code/batch/${batchId}/en-disable`, {}, 400],
      [`/activation-qr-code/batch/${batchId}/en-disable`, { enabled: "no" }, 400],
      ["/activation-qr-code/batch/424242/en-disable", { enabled: false }, 404],
    ] as const) {
      expect((await t.call("POST", path, { token: admin.token, json })).status).toBe(status);
    }
  });

  test("an expired code refuses redemption with 409 QR_CODE_EXPIRED", async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 3_600_000).toISOString();
    const codes = await makeBatch({ bookId, quantity: 3, maxActivations: 5, expiresAt });
    expect((await redeem(codes[0]!.code)).status).toBe(201);
    t.clock.advance(3_600_000);
    const refused = await redeem(codes[1]!.code);
    const problem = await expectProblem(refused, 409, "QR_CODE_EXPIRED");
    expect(problem).toMatchObject({ code: "QR_CODE_EXPIRED", status: 409 });
    expect((await redeem(codes[0]!.code)).status).toBe(409);
    // Nothing was consumed by the refusals.
    expect(await getBatch(codes[0]!.batchId!)).toMatchObject({ redeemed: 1, unused: 2 });
    // A disabled code says so first, as the CSV's status does.
    await t.call("POST", `/activation-qr-code/${codes[2]!.id}/en-disable`, {
      token: admin.token,
      json: { enabled: false },
    });
    await expectProblem(await redeem(codes[2]!.code), 409, "QR_CODE_DISABLED");
  });

  test("codes.csv: a header row, then every code of the batch in id order with its status", async () => {
    const expiresAt = new Date(t.clock.now().getTime() + 1000).toISOString();
    const expiring = await makeBatch({ bookId, quantity: 2, expiresAt });
    t.clock.advance(1000);
    const codes = await makeBatch({ bookId, quantity: 1200, maxActivations: 1, label: 'Run "A", 2026' });
    const batchId = codes[0]!.batchId!;
    expect((await redeem(codes[0]!.code)).status).toBe(201);
    await t.call("POST", `/activation-qr-code/${codes[1]!.id}/en-disable`, {
      token: admin.token,
      json: { enabled: false },
    });
    const response = await t.call("GET", `/activation-qr-code/batch/${batchId}/codes.csv`, {
      token: admin.token,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    // The label's quotes cannot close the quoted file name.
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="Die Winterreise - Run A, 2026.csv"; filename*=UTF-8''Die%20Winterreise%20-%20Run%20A%2C%202026.csv`,
    );
    const rows = parseCsv(await response.text());
    expect(rows[0]).toEqual(["code", "id", "status", "activationCount", "createdAt"]);
    expect(rows).toHaveLength(1201);
    expect(rows.slice(1).map((row) => Number(row[1]))).toEqual(codes.map((qr) => qr.id));
    expect(rows[1]).toEqual([codes[0]!.code, String(codes[0]!.id), "exhausted", "1", codes[0]!.createdAt]);
    expect(rows[2]!.slice(2, 4)).toEqual(["disabled", "0"]);
    expect(rows[3]!.slice(0, 4)).toEqual([codes[2]!.code, String(codes[2]!.id), "available", "0"]);

    const expired = await t.call("GET", `/activation-qr-code/batch/${expiring[0]!.batchId}/codes.csv`, {
      token: admin.token,
    });
    expect(parseCsv(await expired.text()).map((row) => row[2])).toEqual(["status", "expired", "expired"]);
  });

  test("the CSV and the sheet are attachments named `<book title> - <label>` (RFC 6266)", async () => {
    const named = async (title: string, label?: string) => {
      const book = await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title } }), Book);
      const codes = await makeBatch({ bookId: book.id, quantity: 1, ...(label ? { label } : {}) });
      const batchId = codes[0]!.batchId!;
      const names: string[] = [];
      for (const file of ["codes.csv", "sheet.pdf"]) {
        const response = await t.call("GET", `/activation-qr-code/batch/${batchId}/${file}`, {
          token: admin.token,
        });
        expect(response.status).toBe(200);
        await response.body?.cancel();
        names.push(response.headers.get("content-disposition")!);
      }
      return { batchId, csv: names[0]!, pdf: names[1]! };
    };
    /** The exact name a browser saves under: RFC 6266 prefers `filename*`. */
    const exact = (header: string) => decodeURIComponent(header.split("filename*=UTF-8''")[1]!);

    const ascii = await named("Die Winterreise", "Erste Auflage 2026");
    expect(ascii.pdf).toBe(
      `attachment; filename="Die Winterreise - Erste Auflage 2026.pdf"; filename*=UTF-8''Die%20Winterreise%20-%20Erste%20Auflage%202026.pdf`,
    );
    expect(ascii.csv).toBe(
      `attachment; filename="Die Winterreise - Erste Auflage 2026.csv"; filename*=UTF-8''Die%20Winterreise%20-%20Erste%20Auflage%202026.csv`,
    );

    // Non-ASCII: the fallback folds accents and replaces what has no ASCII form; filename* is exact.
    const unicode = await named("Čaj & Käse – Band 2", "Zweite Auflage");
    expect(unicode.pdf).toBe(
      `attachment; filename="Caj & Kase _ Band 2 - Zweite Auflage.pdf"; ` +
        `filename*=UTF-8''%C4%8Caj%20%26%20K%C3%A4se%20%E2%80%93%20Band%202%20-%20Zweite%20Auflage.pdf`,
    );
    expect(exact(unicode.pdf)).toBe("Čaj & Käse – Band 2 - Zweite Auflage.pdf");
    expect(exact(unicode.csv)).toBe("Čaj & Käse – Band 2 - Zweite Auflage.csv");

    // Quotes, slashes and backslashes cannot end the quoted name or name a folder (a title holds no
    // control character: the book refuses it); a batch without a label is named by its id.
    const hostile = await named('Der "Zauberberg"/..\\Teil 2');
    expect(hostile.pdf).toBe(
      `attachment; filename="Der Zauberberg..Teil 2 - batch ${hostile.batchId}.pdf"; ` +
        `filename*=UTF-8''Der%20Zauberberg..Teil%202%20-%20batch%20${hostile.batchId}.pdf`,
    );
    for (const header of [hostile.pdf, hostile.csv]) {
      const fallback = header.match(/filename="([^"]*)"/)![1]!;
      expect(fallback).not.toMatch(/[\\/"\p{Cc}]/u);
      expect(exact(header)).not.toMatch(/[\\/"\p{Cc}]/u);
    }
  });

  test("codes.csv gives the event loop turns while it is read, not only at its end", async () => {
    const codes = await makeBatch({ bookId, quantity: 2_000 });
    const response = await t.call("GET", `/activation-qr-code/batch/${codes[0]!.batchId}/codes.csv`, {
      token: admin.token,
    });
    // A reader that pulls as fast as it can: without a turn between chunks the whole CSV is made
    // in promise callbacks, and a callback scheduled with setImmediate runs only after its end.
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const reader = response.body!.getReader();
    let turnsBeforeLastChunk = 0;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      turnsBeforeLastChunk = turns;
    }
    ticking = false;
    expect(turnsBeforeLastChunk).toBeGreaterThanOrEqual(2);
  });

  test.if(readsPdf)(
    "sheet.pdf: 100 codes print as vector symbols that decode to exactly those codes",
    async () => {
      const codes = await makeBatch({ bookId, quantity: 100, label: "Sheet run" });
      const batchId = codes[0]!.batchId!;
      const response = await t.call("GET", `/activation-qr-code/batch/${batchId}/sheet.pdf`, {
        token: admin.token,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/pdf");
      expect(response.headers.get("content-disposition")).toBe(
        `attachment; filename="Die Winterreise - Sheet run.pdf"; filename*=UTF-8''Die%20Winterreise%20-%20Sheet%20run.pdf`,
      );
      const pdf = new Uint8Array(await response.arrayBuffer());
      expect(new TextDecoder().decode(pdf.subarray(0, 8))).toBe("%PDF-1.7");
      const layout = { paper: "A4", columns: 4, rows: 6, symbolMm: 30 } as const;
      const sheet = readSheet(pdf, layout, codes.length);
      expect(sheet.pages).toBe(5);
      expect(sheet.pageSize).toContain("595.28 x 841.89");
      // Cell by cell, in print order, the symbols say the batch's codes in id order.
      expect(sheet.cells).toEqual(codes.map((qr) => qr.code));
      for (const read of sheet.wholePages) expect(codes.map((qr) => qr.code)).toContain(read);
      // Vector: the document holds no raster image at all (pdfimages lists only its two header lines).
      expect(sheet.images.trim().split("\n")).toHaveLength(2);
      // The readable code under each symbol and the book's title are real text.
      for (const qr of codes) expect(sheet.text).toContain(qr.code);
      expect(sheet.text).toContain("Die Winterreise");
      expect(sheet.text).toContain(`Die Winterreise · Sheet run · batch ${batchId} · page 5 of 5`);
    },
  );

  test.if(readsPdf)(
    "sheet.pdf: layout by query, Letter paper, and QR_PAYLOAD_TEMPLATE in the symbols",
    async () => {
      const other = await createTestApp({
        env: { QR_PAYLOAD_TEMPLATE: "https://books.example.com/redeem?code={code}" },
      });
      try {
        const otherAdmin = await other.admin();
        const book = await bodyAs(
          await other.call("POST", "/book", {
            token: otherAdmin.token,
            json: { title: "Ελληνικά & Ölmühle" },
          }),
          Book,
        );
        const created = await other.call("POST", "/activation-qr-code/batch", {
          token: otherAdmin.token,
          json: { bookId: book.id, quantity: 7 },
        });
        const codes = await bodyAs(created, QrCodes);
        const layout = { paper: "Letter", columns: 3, rows: 2, symbolMm: 40 } as const;
        const response = await other.call(
          "GET",
          `/activation-qr-code/batch/${codes[0]!.batchId}/sheet.pdf?paper=Letter&columns=3&rows=2&symbolMm=40`,
          { token: otherAdmin.token },
        );
        expect(response.status).toBe(200);
        const sheet = readSheet(new Uint8Array(await response.arrayBuffer()), layout, codes.length);
        expect(sheet.pages).toBe(2);
        expect(sheet.pageSize).toContain("612 x 792");
        expect(sheet.cells).toEqual(codes.map((qr) => `https://books.example.com/redeem?code=${qr.code}`));
        // Characters the standard font cannot show become "?"; the rest print as they are.
        expect(sheet.text).toContain("???????? & Ölmühle");
      } finally {
        await other.close();
      }
    },
  );

  test.if(readsPdf)(
    "sheet.pdf: a grid that does not fit the paper is VALIDATION_FAILED naming the parameter",
    async () => {
      const batchId = (await makeBatch({ bookId, quantity: 1 }))[0]!.batchId!;
      for (const [query, field] of [
        ["symbolMm=14", "symbolMm"],
        ["symbolMm=251", "symbolMm"],
        ["symbolMm=big", "symbolMm"],
        ["paper=A3", "paper"],
        ["columns=0", "columns"],
        ["columns=21", "columns"],
        ["rows=41", "rows"],
        ["columns=2.5", "columns"],
        // 190 mm across 5 columns is 38 mm each: a 40 mm symbol does not fit.
        ["columns=5&symbolMm=40", "symbolMm"],
        // 277 mm down 8 rows is 34.6 mm each: 30 mm of symbol leave no room for the text.
        ["rows=8&symbolMm=30", "symbolMm"],
        // 190 mm across 9 columns is 21 mm each: too narrow to print the code legibly.
        ["columns=9&symbolMm=15", "columns"],
      ] as const) {
        const response = await t.call("GET", `/activation-qr-code/batch/${batchId}/sheet.pdf?${query}`, {
          token: admin.token,
        });
        expect(response.status, query).toBe(400);
        const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
        expect(
          problem.errors!.map((e) => e.path),
          query,
        ).toContain(field);
      }
      const smallest = await t.call(
        "GET",
        `/activation-qr-code/batch/${batchId}/sheet.pdf?columns=7&rows=12&symbolMm=15`,
        { token: admin.token },
      );
      expect(smallest.status).toBe(200);
      const head = await t.call("HEAD", `/activation-qr-code/batch/${batchId}/sheet.pdf`, {
        token: admin.token,
      });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toBe("application/pdf");
      expect(await head.text()).toBe("");
      const sheet = readSheet(
        new Uint8Array(await smallest.arrayBuffer()),
        {
          paper: "A4",
          columns: 7,
          rows: 12,
          symbolMm: 15,
        },
        1,
      );
      expect(sheet.cells).toHaveLength(1);
    },
  );
});
