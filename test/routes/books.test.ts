import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { queuedWrite } from "../../src/db/transaction";
import { Book, BookList, BookResource } from "../../src/routes/books/books.schemas";
import { normalizeIsbn } from "../../src/services/isbn";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

describe("books", () => {
  let t: TestApp;
  let admin: { token: string };
  let reader: { token: string; uuid: string };
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
  });
  afterAll(() => t.close());

  const create = async (json: Record<string, unknown>) => {
    const response = await t.call("POST", "/book", { token: admin.token, json });
    expect(response.status).toBe(201);
    return await bodyAs(response, Book);
  };

  test("create answers 201, Location and the stored book with nulls for absent fields", async () => {
    const response = await t.call("POST", "/book", {
      token: admin.token,
      json: { title: "  Dune  ", isbn: "978-0-441-17271-9", language: "EN-gb", unknownField: 1 },
    });
    expect(response.status).toBe(201);
    const book = await bodyAs(response, Book);
    expect(response.headers.get("location")).toBe(`/book/${book.id}`);
    expect(book).toMatchObject({
      title: "Dune",
      author: null,
      isbn: "9780441172719",
      language: "en-GB",
      description: null,
      cover: null,
    });
    expect(book.createdAt).toBe("2026-11-21T10:00:00.000Z");
    const fetched = await t.call("GET", `/book/${book.id}`, { token: reader.token });
    expect(await bodyAs(fetched, Book)).toEqual(book);
  });

  test("ISBN-10 and -13 check digits", () => {
    expect(normalizeIsbn("0-306-40615-2")).toBe("0306406152");
    expect(normalizeIsbn("0 8044 2957 x")).toBe("080442957X");
    expect(normalizeIsbn("978 0 306 40615 7")).toBe("9780306406157");
    expect(normalizeIsbn("0-306-40615-3")).toBeNull();
    expect(normalizeIsbn("9780306406158")).toBeNull();
    expect(normalizeIsbn("12345")).toBeNull();
  });

  test("bad input is VALIDATION_FAILED naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, "title"],
      [{ title: "   " }, "title"],
      [{ title: "x".repeat(301) }, "title"],
      [{ title: "ok", isbn: "978-0-441-17271-0" }, "isbn"],
      [{ title: "ok", language: "not a tag!" }, "language"],
      [{ title: "ok", author: 42 }, "author"],
      [{ title: "ok", description: "d".repeat(10_001) }, "description"],
    ];
    for (const [json, field] of cases) {
      const response = await t.call("POST", "/book", { token: admin.token, json });
      const body = await expectProblem(response, 400, "VALIDATION_FAILED");
      expect(body.errors!.map((e: { path: string }) => e.path)).toContain(field);
    }
  });

  test("PUT replaces every writable field", async () => {
    const book = await create({ title: "Old", author: "A", description: "D" });
    t.clock.advance(1000);
    const response = await t.call("PUT", `/book/${book.id}`, { token: admin.token, json: { title: "New" } });
    expect(response.status).toBe(200);
    const updated = await bodyAs(response, Book);
    expect(updated).toMatchObject({
      id: book.id,
      title: "New",
      author: null,
      description: null,
      createdAt: book.createdAt,
    });
    expect(updated.updatedAt).not.toBe(book.updatedAt);
    const missing = await t.call("PUT", "/book/987654", { token: admin.token, json: { title: "x" } });
    expect(missing.status).toBe(404);
  });

  test("ids: not a positive safe integer → 400, unknown → 404", async () => {
    const notDecimal = [
      "0x10",
      "1e3",
      "+7",
      "007",
      "%207",
      "7%20",
      "0b1",
      "7.0",
      "Infinity",
      "1".repeat(400),
    ];
    for (const id of ["0", "-1", "abc", "1.5", "9007199254740992", ...notDecimal]) {
      const response = await t.call("GET", `/book/${id}`, { token: reader.token });
      await expectProblem(response, 400, "VALIDATION_FAILED");
    }
    // Access is decided before the path parameters: without credentials, a bad id is a 401.
    expect((await t.call("GET", "/book/abc")).status).toBe(401);
    // The largest safe id is an id: unknown, not invalid.
    expect((await t.call("GET", "/book/9007199254740991", { token: reader.token })).status).toBe(404);
    const missing = await t.call("GET", "/book/424242", { token: reader.token });
    await expectProblem(missing, 404, "NOT_FOUND");
  });

  test("delete answers the deleted book; 409 while it has activations", async () => {
    const book = await create({ title: "Doomed" });
    const deleted = await t.call("DELETE", `/book/${book.id}`, { token: admin.token });
    expect(deleted.status).toBe(200);
    expect((await bodyAs(deleted, Book)).id).toBe(book.id);
    expect((await t.call("GET", `/book/${book.id}`, { token: admin.token })).status).toBe(404);

    const held = await create({ title: "Held" });
    const { db } = t.deps;
    const now = t.clock.now();
    await queuedWrite(db, (tx) =>
      tx.orm
        .insert(db.tables.activation)
        .values({ bookId: held.id, userUuid: reader.uuid, createdAt: now, updatedAt: now }),
    );
    const refused = await t.call("DELETE", `/book/${held.id}`, { token: admin.token });
    await expectProblem(refused, 409, "CONFLICT");
    expect((await t.call("GET", `/book/${held.id}`, { token: admin.token })).status).toBe(200);
  });
});

describe("book lists", () => {
  let t: TestApp;
  let token: string;
  const titles = ["Emma", "Beloved", "Dracula", "Atonement", "Carrie"];
  beforeAll(async () => {
    t = await createTestApp();
    const admin = await t.admin();
    token = admin.token;
    for (const [i, title] of titles.entries()) {
      t.clock.advance(1000);
      await t.call("POST", "/book", { token, json: { title, author: i % 2 === 0 ? "Same" : `Author ${i}` } });
    }
  });
  afterAll(() => t.close());

  const list = (query: string, headers: Record<string, string> = {}) =>
    t.call("GET", `/book${query}`, { token, headers });
  const titlesOf = async (query: string) =>
    (await bodyAs(await list(query), BookList.schema)).map((book) => book.title);

  test("the whole list in id order with X-Total-Count, no Link", async () => {
    const response = await list("");
    expect(response.status).toBe(200);
    expect((await bodyAs(response, BookList.schema)).map((b) => b.title)).toEqual(titles);
    expect(response.headers.get("x-total-count")).toBe("5");
    expect(response.headers.get("link")).toBeNull();
  });

  test("count is plain text", async () => {
    const response = await t.call("GET", "/book/count", { token });
    expect(response.headers.get("content-type")).toBe("text/plain;charset=UTF-8");
    expect(await response.text()).toBe("5");
  });

  test("sort by one or several fields, either direction", async () => {
    expect(await titlesOf("?sort=title")).toEqual([...titles].sort());
    expect(await titlesOf("?sort=title,desc")).toEqual([...titles].sort().reverse());
    const multi = await titlesOf("?sort=author,asc&sort=title,DESC");
    expect(multi).toEqual(["Beloved", "Atonement", "Emma", "Dracula", "Carrie"]);
  });

  test("unknown sort field or direction → 400", async () => {
    for (const query of ["?sort=isbn", "?sort=title,sideways", "?sort=title&sort=nope"]) {
      await expectProblem(await list(query), 400, "VALIDATION_FAILED");
    }
  });

  test("paging slices and links first/prev/next/last", async () => {
    const response = await list("?page=1&size=2");
    expect((await bodyAs(response, BookList.schema)).map((b) => b.title)).toEqual(["Dracula", "Atonement"]);
    expect(response.headers.get("x-total-count")).toBe("5");
    const link = response.headers.get("link") ?? "";
    const rels = Object.fromEntries(
      link.split(", ").map((part) => {
        const [, url, rel] = /<([^>]+)>; rel="(\w+)"/.exec(part) ?? [];
        return [rel, new URL(url!, "http://client.example").searchParams.get("page")];
      }),
    );
    expect(rels).toEqual({ first: "0", prev: "0", next: "2", last: "2" });
    expect(link).toStartWith("</book?");
    for (const query of ["?size=0", "?size=1001", "?page=-1&size=2", "?size=two"]) {
      expect((await list(query)).status).toBe(400);
    }
    expect(await bodyAs(await list("?page=9&size=2"), BookList.schema)).toEqual([]);
  });

  test("HAL: items carry _links, lists embed under `books` with page info", async () => {
    const hal = { Accept: "application/hal+json" };
    const response = await list("?page=0&size=2", hal);
    expect(response.headers.get("content-type")).toBe("application/hal+json; charset=UTF-8");
    const body = await bodyAs(response, BookList.hal);
    const books = body._embedded.books!;
    expect(books).toHaveLength(2);
    expect(books[0]!._links.self.href).toMatch(/^\/book\/\d+$/);
    expect(body._links.self.href).toBe("/book?page=0&size=2");
    expect(body.page).toEqual({ size: 2, number: 0, totalElements: 5, totalPages: 3 });
    const unpaged = await bodyAs(await list("", hal), BookList.hal);
    expect(unpaged.page).toBeUndefined();
    const one = await t.call("GET", `/book/${books[0]!.id}`, { token, headers: hal });
    const single = await bodyAs(one, BookResource.hal);
    expect(single._links.cover.href).toEndWith("/cover");
    const plain = await bodyAs(await list("?page=0&size=2", { Accept: "*/*" }), BookList.schema);
    expect(JSON.stringify(plain)).not.toContain("_links");
  });

  test("HAL links start at PUBLIC_URL when it is set", async () => {
    const other = await createTestApp({ env: { PUBLIC_URL: "https://books.example.com" } });
    const admin = await other.admin();
    await other.call("POST", "/book", { token: admin.token, json: { title: "x" } });
    const response = await other.call("GET", "/book", {
      token: admin.token,
      headers: { Accept: "application/hal+json" },
    });
    const body = await bodyAs(response, BookList.hal);
    expect(body._embedded.books![0]!._links.self.href).toStartWith("https://books.example.com/book/");
    await other.close();
  });
});
