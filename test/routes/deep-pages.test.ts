// A page past the middle of a list is read from the list's end (db/page-read.ts), every ORDER BY
// term flipped: it must still be exactly its slice of the whole list, in every sort, with NULLs
// (book.author) and ties (equal authors, titles, times; enabled codes) — on both databases, whose
// NULLs sort at opposite ends.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BookList } from "../../src/routes/books/books.schemas";
import { QrCodeList } from "../../src/routes/qr-codes/qr-codes.schemas";
import { testDialect } from "../helpers/databases";
import { bodyAs } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const BOOKS = 23;
const CODES = 23;
const SIZE = 4;

describe(`deep pages are slices of the whole list (${testDialect})`, () => {
  let t: TestApp;
  let token: string;
  let bookId: number;
  const statements: string[] = [];
  beforeAll(async () => {
    t = await createTestApp({ onQuery: (query) => statements.push(query) });
    token = (await t.admin()).token;
    for (let i = 0; i < BOOKS; i++) {
      // Every third book shares its millisecond with the one before; authors repeat or are null.
      if (i % 3 !== 0) t.clock.advance(1);
      const author = i % 4 === 0 ? null : `Author ${i % 3}`;
      const title = `Title ${i % 5}`;
      const created = await t.call("POST", "/book", { token, json: { title, author } });
      expect(created.status).toBe(201);
      bookId = ((await created.json()) as { id: number }).id;
    }
    const batch = await t.call("POST", "/activation-qr-code/batch", {
      token,
      json: { bookId, quantity: CODES, maxActivations: 1 },
    });
    const codes = (await batch.json()) as { id: number }[];
    for (const code of codes.filter((_, i) => i % 5 === 2)) {
      const off = await t.call("POST", `/activation-qr-code/${code.id}/en-disable`, {
        token,
        json: { enabled: false },
      });
      expect(off.status).toBe(200);
    }
  });
  afterAll(() => t.close());

  const ids = async (
    path: string,
    query: string,
    schema: typeof BookList.schema | typeof QrCodeList.schema,
  ) => {
    const response = await t.call("GET", `${path}${query}`, { token });
    expect(response.status).toBe(200);
    return {
      ids: (await bodyAs(response, schema)).map((row) => row.id),
      total: response.headers.get("x-total-count"),
    };
  };

  /** Every page of `path` sorted by `sort` (and one past the end) against the whole list. */
  async function expectPagesAreSlices(
    path: string,
    sort: string,
    schema: typeof BookList.schema | typeof QrCodeList.schema,
    rows: number,
  ) {
    const whole = await ids(path, sort ? `?${sort}` : "", schema);
    expect(whole.ids).toHaveLength(rows);
    const pages = Math.ceil(rows / SIZE);
    for (let page = 0; page <= pages; page++) {
      const separator = sort ? `${sort}&` : "";
      const slice = await ids(path, `?${separator}page=${page}&size=${SIZE}`, schema);
      expect({ page, ids: slice.ids, total: slice.total }).toEqual({
        page,
        ids: whole.ids.slice(page * SIZE, (page + 1) * SIZE),
        total: String(rows),
      });
    }
  }

  const bookSorts = [
    "",
    ...["id", "title", "author", "createdAt", "updatedAt"].flatMap((field) => [
      `sort=${field},asc`,
      `sort=${field},desc`,
    ]),
    "sort=author,desc&sort=title,asc",
    "sort=title,asc&sort=author,desc&sort=createdAt,desc",
  ];
  for (const sort of bookSorts) {
    test(`GET /book?${sort}`, () => expectPagesAreSlices("/book", sort, BookList.schema, BOOKS));
  }

  for (const sort of ["", "sort=enabled,asc", "sort=enabled,desc", "sort=createdAt,desc&sort=enabled,asc"]) {
    test(`GET /activation-qr-code?${sort}`, () =>
      expectPagesAreSlices("/activation-qr-code", sort, QrCodeList.schema, CODES));
    test(`GET /activation-qr-code/ofbook/{bookId}?${sort}`, () =>
      expectPagesAreSlices(`/activation-qr-code/ofbook/${bookId}`, sort, QrCodeList.schema, CODES));
  }

  test("the last page is read backwards from the end of the list, not past all the rows before it", async () => {
    statements.length = 0;
    const last = await ids("/book", `?page=${Math.floor((BOOKS - 1) / SIZE)}&size=${SIZE}`, BookList.schema);
    expect(last.ids).toHaveLength(BOOKS % SIZE || SIZE);
    const read = statements.filter(
      (statement) => /^select .* from "book"/i.test(statement) && !/count\(/i.test(statement),
    );
    expect(read).toHaveLength(1);
    expect(read[0]).toMatch(/order by "book"\."id" desc/i);
  });
});
