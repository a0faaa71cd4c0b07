import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { withTransaction } from "../../src/db/transaction";
import { Activation, ActivationList } from "../../src/routes/activations/activations.schemas";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import {
  BookWithVersionAndActivation,
  BookWithVersionAndActivationResource,
  MyBook,
  MyBookList,
} from "../../src/routes/reader/reader.schemas";
import { bodyAs, expectProblem, jsonOf } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

const MyBooks = z.array(MyBook);
const BooksWithVersionAndActivation = z.array(BookWithVersionAndActivation);
type Caller = { token: string; uuid: string };

/** Books, versions with archives, and activations straight through the API or the database. */
function fixtures(t: TestApp, admin: Caller) {
  return {
    async book(title: string): Promise<number> {
      const response = await t.call("POST", "/book", { token: admin.token, json: { title } });
      return (await bodyAs(response, Book)).id;
    },
    /** A version; with an archive when `archived` (the blob row written directly: uploads are not what this tests). */
    async version(bookId: number, versionCode: number, archived: boolean): Promise<number> {
      const response = await t.call("POST", "/bookversion", {
        token: admin.token,
        json: { bookId, versionCode, versionName: `v${versionCode}` },
      });
      const { id } = await bodyAs(response, BookVersion);
      if (archived) {
        const { db } = t.deps;
        const sha256 = createHash("sha256").update(`${bookId}/${versionCode}`).digest("hex");
        const now = t.clock.now();
        await withTransaction(db, async (tx) => {
          await tx.orm.insert(db.tables.blob).values({ sha256, size: 100, createdAt: now });
          await tx.orm
            .update(db.tables.bookVersion)
            .set({
              archiveSha256: sha256,
              archiveSize: 100,
              archiveFilename: "a.zip",
              archiveUploadedAt: now,
            })
            .where(eq(db.tables.bookVersion.id, id));
        });
      }
      return id;
    },
    async activate(bookId: number, user: Caller) {
      const response = await t.call("POST", "/activation", {
        token: admin.token,
        json: { bookId, userUuid: user.uuid },
      });
      expect(response.status).toBe(201);
      return await bodyAs(response, Activation);
    },
  };
}

describe("the reader's views", () => {
  let t: TestApp;
  let admin: Caller;
  let reader: Caller;
  let other: Caller;
  let f: ReturnType<typeof fixtures>;
  let books: { zebra: number; apple: number; mango: number };
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
    other = await t.user();
    f = fixtures(t, admin);
    books = { zebra: await f.book("Zebra"), apple: await f.book("Apple"), mango: await f.book("Mango") };
    // Zebra: version 2 has an archive, 3 does not yet: the newest is 2. Apple: none with an archive.
    await f.version(books.zebra, 1, true);
    await f.version(books.zebra, 2, true);
    await f.version(books.zebra, 3, false);
    await f.version(books.apple, 1, false);
    await f.version(books.mango, 7, true);
    await f.activate(books.zebra, reader);
    t.clock.advance(60_000);
    await f.activate(books.apple, reader);
    await f.activate(books.mango, other);
  });
  afterAll(() => t.close());

  test("my-books: the caller's books with their newest version, newest activation first", async () => {
    const response = await t.call("GET", "/book/my-books", { token: reader.token });
    expect(response.status).toBe(200);
    const mine = await bodyAs(response, MyBooks);
    expect(response.headers.get("x-total-count")).toBe("2");
    expect(mine.map((item) => item.book.title)).toEqual(["Apple", "Zebra"]);
    expect(mine[0]!.newestVersion).toBeNull();
    expect(mine[1]!.newestVersion).toMatchObject({ bookId: books.zebra, versionCode: 2 });
    expect(mine[1]!.activatedAt).toBe("2026-11-21T10:00:00.000Z");
    expect(mine[0]!.activatedAt).toBe("2026-11-21T10:01:00.000Z");
    const activation = await t.call("GET", `/activation/${mine[0]!.activationId}`, { token: reader.token });
    expect((await bodyAs(activation, Activation)).bookId).toBe(books.apple);

    const empty = await t.call("GET", "/book/my-books", { token: (await t.user()).token });
    expect(await bodyAs(empty, MyBooks)).toEqual([]);
  });

  test("my-books: sort by title or activatedAt; paging; HAL rel myBooks", async () => {
    const titles = async (query: string) =>
      (await bodyAs(await t.call("GET", `/book/my-books${query}`, { token: reader.token }), MyBooks)).map(
        (item) => item.book.title,
      );
    expect(await titles("?sort=title")).toEqual(["Apple", "Zebra"]);
    expect(await titles("?sort=title,desc")).toEqual(["Zebra", "Apple"]);
    expect(await titles("?sort=activatedAt")).toEqual(["Zebra", "Apple"]);
    expect(await titles("?page=1&size=1")).toEqual(["Zebra"]);
    const bad = await t.call("GET", "/book/my-books?sort=id", { token: reader.token });
    await expectProblem(bad, 400, "VALIDATION_FAILED");

    const hal = await t.call("GET", "/book/my-books?page=0&size=1", {
      token: reader.token,
      headers: { Accept: "application/hal+json" },
    });
    expect(hal.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    const body = await bodyAs(hal, MyBookList.hal);
    expect(MyBooks.parse(body._embedded.myBooks)).toHaveLength(1);
    expect(body._embedded.myBooks![0]!._links.book.href).toBe(`/book/${books.apple}`);
    expect(body.page).toEqual({ size: 1, number: 0, totalElements: 2, totalPages: 2 });
  });

  test("all-books-with-version-and-activation: every book, the caller's activation or null", async () => {
    const response = await t.call("GET", "/book/all-books-with-version-and-activation", {
      token: reader.token,
    });
    expect(response.status).toBe(200);
    const all = await bodyAs(response, BooksWithVersionAndActivation);
    expect(response.headers.get("x-total-count")).toBe("3");
    const byTitle = Object.fromEntries(all.map((item) => [item.book.title, item]));
    expect(all.map((item) => item.book.id)).toEqual([books.zebra, books.apple, books.mango]);
    expect(byTitle.Zebra!.activation).toMatchObject({ bookId: books.zebra, userUuid: reader.uuid });
    expect(byTitle.Zebra!.newestVersion?.versionCode).toBe(2);
    expect(byTitle.Apple!.activation?.userUuid).toBe(reader.uuid);
    expect(byTitle.Apple!.newestVersion).toBeNull();
    // Someone else's activation is not the caller's.
    expect(byTitle.Mango!.activation).toBeNull();
    expect(byTitle.Mango!.newestVersion?.versionCode).toBe(7);

    const paged = await t.call(
      "GET",
      "/book/all-books-with-version-and-activation?sort=title&page=1&size=2",
      {
        token: other.token,
      },
    );
    const page = await bodyAs(paged, BooksWithVersionAndActivation);
    expect(page.map((item) => [item.book.title, item.activation?.userUuid ?? null])).toEqual([
      ["Zebra", null],
    ]);
    expect(paged.headers.get("x-total-count")).toBe("3");
    const sorted = await t.call("GET", "/book/all-books-with-version-and-activation?sort=title", {
      token: other.token,
    });
    const sortedItems = await bodyAs(sorted, BooksWithVersionAndActivation);
    expect(sortedItems.map((item) => item.book.title)).toEqual(["Apple", "Mango", "Zebra"]);
    expect(sortedItems[1]!.activation?.userUuid).toBe(other.uuid);
    expect(sortedItems[1]!.newestVersion?.versionCode).toBe(7);
  });

  test("{id}/with-version-and-activation: one book; 404 when missing, 400 for a bad id", async () => {
    const held = await t.call("GET", `/book/${books.zebra}/with-version-and-activation`, {
      token: reader.token,
    });
    expect(held.status).toBe(200);
    const item = await bodyAs(held, BookWithVersionAndActivation);
    expect(item.book.title).toBe("Zebra");
    expect(item.newestVersion?.versionCode).toBe(2);
    expect(item.activation?.userUuid).toBe(reader.uuid);
    const notHeld = await t.call("GET", `/book/${books.mango}/with-version-and-activation`, {
      token: reader.token,
      headers: { Accept: "application/hal+json" },
    });
    const body = await bodyAs(notHeld, BookWithVersionAndActivationResource.hal);
    expect(BookWithVersionAndActivation.parse(body).activation).toBeNull();
    expect(body._links.self.href).toBe(`/book/${books.mango}/with-version-and-activation`);
    const missing = await t.call("GET", "/book/424242/with-version-and-activation", { token: reader.token });
    await expectProblem(missing, 404, "NOT_FOUND");
    expect((await t.call("GET", "/book/x/with-version-and-activation", { token: reader.token })).status).toBe(
      400,
    );
  });

  test("{id}/activations and its count, for admins; 404 for a missing book", async () => {
    const response = await t.call("GET", `/book/${books.zebra}/activations`, { token: admin.token });
    expect(response.status).toBe(200);
    const list = await bodyAs(response, z.array(Activation));
    expect(list.map((a) => a.userUuid)).toEqual([reader.uuid]);
    expect(response.headers.get("x-total-count")).toBe("1");
    const count = await t.call("GET", `/book/${books.zebra}/activations/count`, { token: admin.token });
    expect(count.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
    expect(await count.text()).toBe("1");
    const hal = await t.call("GET", `/book/${books.zebra}/activations`, {
      token: admin.token,
      headers: { Accept: "application/hal+json" },
    });
    expect(
      z.array(Activation).parse((await bodyAs(hal, ActivationList.hal))._embedded.activations),
    ).toHaveLength(1);
    for (const path of ["/book/424242/activations", "/book/424242/activations/count"]) {
      const missing = await t.call("GET", path, { token: admin.token });
      await expectProblem(missing, 404, "NOT_FOUND");
    }
    const forbidden = await t.call("GET", `/book/${books.zebra}/activations`, { token: reader.token });
    expect(forbidden.status).toBe(403);
  });

  test("a book deletes once its activations are gone, and its QR codes go with it", async () => {
    const book = await f.book("Short-lived");
    const created = await t.call("POST", "/activation-qr-code", {
      token: admin.token,
      json: { bookId: book },
    });
    const qr = await bodyAs(created, ActivationQrCode);
    const redeemed = await t.call("POST", "/activation/by-qr-code", {
      token: other.token,
      json: { code: qr.code },
    });
    const activation = await bodyAs(redeemed, Activation);
    const refused = await t.call("DELETE", `/book/${book}`, { token: admin.token });
    await expectProblem(refused, 409, "CONFLICT");

    expect((await t.call("DELETE", `/activation/${activation.id}`, { token: admin.token })).status).toBe(200);
    const deleted = await t.call("DELETE", `/book/${book}`, { token: admin.token });
    expect(deleted.status).toBe(200);
    expect((await bodyAs(deleted, Book)).id).toBe(book);
    const gone = await t.call("GET", `/activation-qr-code/${qr.id}`, { token: admin.token });
    expect(gone.status).toBe(404);
    const again = await t.call("POST", "/activation/by-qr-code", {
      token: other.token,
      json: { code: qr.code },
    });
    expect(again.status).toBe(404);
  });
});

describe("the reader's views answer with a fixed number of queries", () => {
  let t: TestApp;
  let counting = false;
  let queries = 0;
  let admin: Caller;
  let reader: Caller;
  let f: ReturnType<typeof fixtures>;
  beforeAll(async () => {
    t = await createTestApp({
      onQuery: () => {
        if (counting) queries++;
      },
    });
    admin = await t.admin();
    reader = await t.user();
    f = fixtures(t, admin);
  });
  afterAll(() => t.close());

  /** Adds books until there are `n`, each with an archived version; the reader holds each second one. */
  const growTo = async (n: number) => {
    const existing = Number(await (await t.call("GET", "/book/count", { token: admin.token })).text());
    for (let i = existing; i < n; i++) {
      const book = await f.book(`Book ${i}`);
      await f.version(book, 1, true);
      await f.version(book, 2, i % 3 === 0);
      if (i % 2 === 0) await f.activate(book, reader);
    }
  };

  const queriesFor = async (path: string) => {
    // Warm up: a session touch or other first-time work must not count.
    expect((await t.call("GET", path, { token: reader.token })).status).toBe(200);
    queries = 0;
    counting = true;
    const response = await t.call("GET", path, { token: reader.token });
    counting = false;
    expect(response.status).toBe(200);
    // Checked by the caller against the list schema of the path it asked for.
    return { queries, body: await jsonOf(response) };
  };

  test("3 books and 30 books take the same number of queries", async () => {
    const paths = [
      "/book/my-books",
      "/book/my-books?sort=title&page=0&size=100",
      "/book/all-books-with-version-and-activation",
      "/book/all-books-with-version-and-activation?page=0&size=100",
    ];
    await growTo(3);
    const few = [];
    for (const path of paths) few.push(await queriesFor(path));
    expect(MyBooks.parse(few[0]!.body)).toHaveLength(2);
    expect(BooksWithVersionAndActivation.parse(few[2]!.body)).toHaveLength(3);
    const single = await queriesFor("/book/1/with-version-and-activation");

    await growTo(30);
    const many = [];
    for (const path of paths) many.push(await queriesFor(path));
    expect(MyBooks.parse(many[0]!.body)).toHaveLength(15);
    const all = BooksWithVersionAndActivation.parse(many[2]!.body);
    expect(all).toHaveLength(30);
    expect(all.filter((item) => item.activation !== null)).toHaveLength(15);
    expect(all.every((item) => item.newestVersion !== null)).toBe(true);

    expect(many.map((m) => m.queries)).toEqual(few.map((m) => m.queries));
    // The session row, one query for the list, and one for the total of a paged list.
    expect(many.map((m) => m.queries)).toEqual([2, 3, 2, 3]);
    expect((await queriesFor("/book/1/with-version-and-activation")).queries).toBe(single.queries);
    expect(single.queries).toBe(2);
  });
});
