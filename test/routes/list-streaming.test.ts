// Whole lists longer than a chunk are streamed (README, What is there: Lists and streams): the same
// bytes as the whole array (or HAL collection) JSON.stringify makes of the rows ORDER BY gives,
// read by keyset in chunks in one snapshot. Sorted on every kind of column, NULLs and ties
// included, on either database (whose NULLs sort differently).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import type { Database } from "#db";
import { listSnapshotSlots, openListSnapshots } from "../../src/db/list-snapshot";
import { withTransaction } from "../../src/db/transaction";
import { isStreamedList } from "../../src/http/list-stream";
import type { ListWindow } from "../../src/lib/list-window";
import { listActivations, listBooksWithActivation, listHeldBooks } from "../../src/repositories/activations";
import { listBooks } from "../../src/repositories/books";
import { listQrCodes } from "../../src/repositories/qr-codes";
import { ActivationList, toActivation } from "../../src/routes/activations/activations.schemas";
import { BookList, toBook } from "../../src/routes/books/books.schemas";
import { NullActivationsResource, QrCodeList, toQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import {
  BookWithVersionAndActivationList,
  MyBookList,
  toBookWithVersionAndActivation,
  toMyBook,
} from "../../src/routes/reader/reader.schemas";
import { LIST_CHUNK } from "../../src/services/page";
import { createTestApp, type TestApp } from "../helpers/test-app";

const BOOKS = LIST_CHUNK * 2 + 600;
const HELD = LIST_CHUNK + 100;
const CODES = LIST_CHUNK * 2 + 300;
const HAL = { Accept: "application/hal+json" };

/** The body as the client gets it, and in how many pieces the stream gave it. */
async function bodyOf(response: Response): Promise<{ text: string; pieces: number }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let pieces = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), pieces };
    pieces += 1;
    text += decoder.decode(value, { stream: true });
  }
}

/** A window of `sort` items as the route parses them ("field" or "field,desc"). */
function windowOf<F extends string>(sort: string[]): ListWindow<F> {
  return {
    sort: sort.map((item) => {
      const [field, direction] = item.split(",");
      return { field: field as F, direction: direction === "desc" ? "desc" : "asc" };
    }),
  };
}

function query(sort: string[]): string {
  return sort.length === 0 ? "" : `?${sort.map((item) => `sort=${encodeURIComponent(item)}`).join("&")}`;
}

describe("whole lists streamed", () => {
  let t: TestApp;
  let db: Database;
  let admin: { token: string; uuid: string };
  let reader: { token: string; uuid: string };
  const other = crypto.randomUUID();

  beforeAll(async () => {
    t = await createTestApp();
    db = t.deps.db;
    admin = await t.admin();
    reader = await t.user();
    const base = Date.parse("2026-01-01T00:00:00.000Z");
    // Ties everywhere: 7 titles, authors null one time in three, 40 creation times.
    const books = Array.from({ length: BOOKS }, (_, i) => ({
      title: `Title ${i % 7}`,
      author: i % 3 === 0 ? null : `Author ${i % 11}`,
      createdAt: new Date(base + (i % 40) * 1000),
      updatedAt: new Date(base + i),
    }));
    const codes = Array.from({ length: CODES }, (_, i) => ({
      bookId: 1,
      code: `CODE${String(i).padStart(8, "0")}`,
      enabled: i % 5 !== 0,
      maxActivations: 1,
      activationCount: 0,
      firstRedeemedAt: i % 3 === 0 ? new Date(base) : null,
      createdAt: new Date(base + (i % 13) * 1000),
      updatedAt: new Date(base),
    }));
    // The reader holds HELD books, another user as many: activations made in 30 distinct instants.
    const activations = [reader.uuid, other].flatMap((userUuid) =>
      Array.from({ length: HELD }, (_, i) => ({
        bookId: i + 1,
        userUuid,
        createdAt: new Date(base + (i % 30) * 1000),
        updatedAt: new Date(base),
      })),
    );
    await withTransaction(db, async (tx) => {
      const { book, activationQrCode, activation } = tx.tables;
      for (let at = 0; at < BOOKS; at += 500) await tx.orm.insert(book).values(books.slice(at, at + 500));
      for (let at = 0; at < CODES; at += 500)
        await tx.orm.insert(activationQrCode).values(codes.slice(at, at + 500));
      for (let at = 0; at < activations.length; at += 500)
        await tx.orm.insert(activation).values(activations.slice(at, at + 500));
    });
  });
  afterAll(() => t.close());

  /** GET `path` as JSON and as HAL: each the bytes `expected` (the items) would be, in several pieces. */
  async function expectStreamed(
    path: string,
    token: string,
    items: unknown[],
    toHal: (item: never) => unknown,
    rel: string,
  ) {
    const plain = await t.call("GET", path, { token });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    expect(plain.headers.get("x-total-count")).toBe(String(items.length));
    expect(isStreamedList(plain)).toBe(true);
    const body = await bodyOf(plain);
    expect(body.pieces).toBeGreaterThan(1);
    expect(body.text).toBe(JSON.stringify(items));

    const hal = await t.call("GET", path, { token, headers: HAL });
    expect(hal.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    expect(hal.headers.get("x-total-count")).toBe(String(items.length));
    expect(isStreamedList(hal)).toBe(true);
    const halBody = await bodyOf(hal);
    expect(halBody.pieces).toBeGreaterThan(1);
    const expected = {
      _embedded: { [rel]: items.map((item) => toHal(item as never)) },
      _links: { self: { href: path } },
    };
    expect(halBody.text).toBe(JSON.stringify(expected));
    expect(openListSnapshots(db)).toBe(0);
  }

  for (const sort of [
    [],
    ["title"],
    ["title,desc"],
    ["author"],
    ["author,desc", "title"],
    ["createdAt,desc", "author"],
    ["updatedAt", "id,desc"],
  ]) {
    test(`GET /book${query(sort)}: the bytes of ORDER BY's rows, JSON and HAL`, async () => {
      const rows = await listBooks(db, windowOf(sort));
      expect(rows.length).toBe(BOOKS);
      const items = rows.map(toBook);
      await expectStreamed(
        `/book${query(sort)}`,
        admin.token,
        items,
        (item) => BookList.item.toHal(item, ""),
        "books",
      );
    });
  }

  for (const sort of [[], ["enabled,desc", "createdAt"], ["createdAt,desc"]]) {
    test(`GET /activation-qr-code${query(sort)} streams`, async () => {
      const items = (await listQrCodes(db, {}, windowOf(sort))).map(toQrCode);
      const path = `/activation-qr-code${query(sort)}`;
      await expectStreamed(
        path,
        admin.token,
        items,
        (item) => QrCodeList.item.toHal(item, ""),
        "activationQrCodes",
      );
    });
  }

  for (const sort of [["bookId,desc", "createdAt"], ["createdAt"]]) {
    test(`GET /activation${query(sort)} streams`, async () => {
      const items = (await listActivations(db, windowOf(sort))).map(toActivation);
      expect(items.length).toBe(HELD * 2);
      const path = `/activation${query(sort)}`;
      await expectStreamed(
        path,
        admin.token,
        items,
        (item) => ActivationList.item.toHal(item, ""),
        "activations",
      );
    });
  }

  for (const sort of [[], ["title"], ["activatedAt,desc"]]) {
    test(`GET /book/my-books${query(sort)} streams (the shelf: newest activation first)`, async () => {
      const items = (await listHeldBooks(db, reader.uuid, windowOf(sort))).map(toMyBook);
      expect(items.length).toBe(HELD);
      const path = `/book/my-books${query(sort)}`;
      await expectStreamed(path, reader.token, items, (item) => MyBookList.item.toHal(item, ""), "myBooks");
    });
  }

  for (const sort of [[], ["author,desc"]]) {
    test(`GET /book/all-books-with-version-and-activation${query(sort)} streams`, async () => {
      const rows = await listBooksWithActivation(db, reader.uuid, windowOf(sort));
      const items = rows.map(toBookWithVersionAndActivation);
      expect(items.length).toBe(BOOKS);
      const path = `/book/all-books-with-version-and-activation${query(sort)}`;
      const toHal = (item: never) => BookWithVersionAndActivationList.item.toHal(item, "");
      await expectStreamed(path, reader.token, items, toHal, "booksWithVersionAndActivation");
    });
  }

  test("null-activations streams its codes inside its object, count included, JSON and HAL", async () => {
    const rows = await listQrCodes(db, { bookId: 1, unused: true });
    expect(rows.length).toBeGreaterThan(LIST_CHUNK);
    const unused = { bookId: 1, count: rows.length, qrCodes: rows.map(toQrCode) };
    const path = "/activation-qr-code/ofbook/1/null-activations";
    const response = await t.call("GET", path, { token: admin.token });
    expect(isStreamedList(response)).toBe(true);
    const plain = await bodyOf(response);
    expect(plain.pieces).toBeGreaterThan(1);
    expect(plain.text).toBe(JSON.stringify(unused));
    const hal = await bodyOf(await t.call("GET", path, { token: admin.token, headers: HAL }));
    expect(hal.pieces).toBeGreaterThan(1);
    expect(hal.text).toBe(JSON.stringify(NullActivationsResource.toHal(unused, "")));
  });

  test("a page is still one body with its count, and a list that fits one chunk too", async () => {
    const page = await t.call("GET", "/book?page=2&size=7&sort=author", { token: admin.token });
    expect(page.headers.get("x-total-count")).toBe(String(BOOKS));
    expect(isStreamedList(page)).toBe(false);
    expect((await bodyOf(page)).pieces).toBe(1);
    const short = await t.call("GET", "/activation-qr-code/ofbook/2", { token: admin.token });
    expect(short.headers.get("x-total-count")).toBe("0");
    expect(await short.text()).toBe("[]");
  });

  test("rows written while a list streams do not change what it answers (one snapshot)", async () => {
    const before = (await listBooks(db, windowOf(["title"]))).map(toBook);
    const response = await t.call("GET", "/book?sort=title", { token: admin.token });
    expect(response.headers.get("x-total-count")).toBe(String(BOOKS));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    // A new book sorts first ("Title 0" > "A…"), and the last book goes.
    const created = await t.call("POST", "/book", { token: admin.token, json: { title: "A new book" } });
    expect(created.status).toBe(201);
    const deleted = await t.call("DELETE", `/book/${BOOKS}`, { token: admin.token });
    expect(deleted.ok).toBe(true);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe(JSON.stringify(before));
    const after = await t.call("GET", "/book/count", { token: admin.token });
    expect(await after.text()).toBe(String(BOOKS));
  });

  test("a client that goes away ends the stream's snapshot at once; the next stream runs", async () => {
    const response = await t.call("GET", "/activation-qr-code", { token: admin.token });
    const reader = response.body!.getReader();
    await reader.read();
    expect(openListSnapshots(db)).toBe(1);
    await reader.cancel();
    expect(openListSnapshots(db)).toBe(0);
    if (t.database.dialect === "postgres") {
      const sql = new SQL(t.database.url);
      try {
        const [row] = await sql`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
        expect(row.n).toBe(0);
      } finally {
        await sql.close();
      }
    }
    const next = await t.call("GET", "/activation-qr-code", { token: admin.token });
    expect(JSON.parse((await bodyOf(next)).text)).toHaveLength(CODES);
  });

  test("streams beyond the slots wait for one to end, holding no connection meanwhile", async () => {
    const slots = listSnapshotSlots(db);
    // One whole list at a time per user: each stream is another reader's.
    const users = await Promise.all(Array.from({ length: slots + 1 }, () => t.user()));
    const readers: { cancel(): Promise<void> }[] = [];
    for (const user of users.slice(0, slots)) {
      const response = await t.call("GET", "/book", { token: user.token });
      const reader = response.body!.getReader();
      await reader.read();
      readers.push(reader);
    }
    expect(openListSnapshots(db)).toBe(slots);
    let answered = false;
    const waiting = t.call("GET", "/book", { token: users[slots]!.token }).then((response) => {
      answered = true;
      return response;
    });
    // Other requests go on meanwhile.
    expect((await t.call("GET", "/book/1", { token: admin.token })).status).toBe(200);
    await Bun.sleep(100);
    expect(answered).toBe(false);
    await readers.pop()!.cancel();
    const next = await waiting;
    expect(JSON.parse((await bodyOf(next)).text)).toHaveLength(BOOKS);
    for (const reader of readers) await reader.cancel();
    expect(openListSnapshots(db)).toBe(0);
  });

  test("a user's second whole list while the first streams: 429 with Retry-After; a page is still served", async () => {
    const first = await t.call("GET", "/book", { token: reader.token });
    const stream = first.body!.getReader();
    await stream.read();
    const second = await t.call("GET", "/book/my-books", { token: reader.token });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await second.json()) as { code: string }).code).toBe("TOO_MANY_REQUESTS");
    const page = await t.call("GET", "/book?page=0&size=5", { token: reader.token });
    expect(page.status).toBe(200);
    await stream.cancel();
    expect(openListSnapshots(db)).toBe(0);
    const third = await t.call("GET", "/book/my-books", { token: reader.token });
    expect(third.status).toBe(200);
    expect(JSON.parse((await bodyOf(third)).text)).toHaveLength(HELD);
  });

  test("HEAD of a streamed list: its headers, and its snapshot given back", async () => {
    const response = await t.call("HEAD", "/activation-qr-code", { token: admin.token });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-total-count")).toBe(String(CODES));
    expect(await response.text()).toBe("");
    expect(openListSnapshots(db)).toBe(0);
  });
});
