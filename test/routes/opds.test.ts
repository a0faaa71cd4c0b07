// The OPDS catalogs (README, Reading apps), read by outside oracles: OPDS 2.0 against its JSON
// Schemas (ajv), OPDS 1.2 through Readium's r2-opds-js (Thorium's parser) and a namespace-aware
// XML parser; and the requests real reading apps send, replayed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq } from "drizzle-orm";
import { withTransaction } from "../../src/db/transaction";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { buildEpub } from "../helpers/epub";
import {
  checkAtomFeed,
  checkOpenSearch,
  hasOpdsSchemas,
  type Opds2Validators,
  opds2Validators,
  readOpds1,
} from "../helpers/opds-oracles";
import { makePng } from "../helpers/png";
import { bodyAs, expectProblem, jsonOf } from "../helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const NAVIGATION = "application/atom+xml;profile=opds-catalog;kind=navigation";
const ACQUISITION = "application/atom+xml;profile=opds-catalog;kind=acquisition";
const OPDS2 = "application/opds+json";
const AUTH_DOC = "application/opds-authentication+json";
const DAY = 24 * 60 * 60 * 1000;

type Caller = { token: string; uuid: string; email: string };

const basic = (email: string, password = TEST_PASSWORD) =>
  `Basic ${Buffer.from(`${email}:${password}`).toString("base64")}`;

interface Opds2Publication {
  metadata: { title: string; identifier: string; author?: string; modified: string };
  links: { rel: string; href: string; type: string }[];
  images?: { href: string; type: string }[];
}
interface Opds2Feed {
  metadata: { title: string; numberOfItems?: number; itemsPerPage?: number; currentPage?: number };
  links: { rel: string; href: string; type?: string; templated?: boolean }[];
  navigation?: { href: string; title: string; rel?: string }[];
  publications?: Opds2Publication[];
}

const schemas = hasOpdsSchemas();
let validators: Opds2Validators | undefined;
const expectValidOpds2 = (document: unknown) => {
  if (!schemas) return;
  validators ??= opds2Validators();
  expect(validators.feed(document)).toEqual([]);
};

describe.if(schemas)("the OPDS 2.0 oracle", () => {
  test("it refuses what a reader would: an empty publications array, a feed without self, a publication without acquisition", () => {
    validators ??= opds2Validators();
    const self = { rel: "self", href: "/opds/v2/shelf", type: OPDS2 };
    const publication = {
      metadata: { title: "T" },
      links: [{ rel: "http://opds-spec.org/acquisition", href: "/f", type: "application/zip" }],
    };
    expect(validators.feed({ metadata: { title: "x" }, links: [self], publications: [publication] })).toEqual(
      [],
    );
    expect(validators.feed({ metadata: { title: "x" }, links: [self], publications: [] })).not.toEqual([]);
    expect(
      validators.feed({
        metadata: { title: "x" },
        links: [{ ...self, rel: "start" }],
        publications: [publication],
      }),
    ).not.toEqual([]);
    expect(
      validators.feed({
        metadata: { title: "x" },
        links: [self],
        publications: [{ ...publication, links: [self] }],
      }),
    ).not.toEqual([]);
    expect(
      validators.feed({
        metadata: { title: "x", currentPage: 0 },
        links: [self],
        publications: [publication],
      }),
    ).not.toEqual([]);
  });
});

describe("OPDS catalogs", () => {
  let t: TestApp;
  let admin: Caller;
  let reader: Caller;
  let auth: Record<string, string>;
  /** The books the reader holds through the API, with real files: [id, title]. */
  const real: {
    id: number;
    versionId: number;
    title: string;
    zip: Uint8Array<ArrayBuffer>;
    png: Uint8Array<ArrayBuffer>;
  }[] = [];

  const get = (path: string, headers: Record<string, string> = auth) => t.call("GET", path, { headers });

  /** What a reading app sends: HTTP Basic with the e-mail and a device token of `scopes`. */
  async function deviceToken(user: Caller, scopes = ["opds"]): Promise<string> {
    const response = await t.call("POST", "/authentication/device-token", {
      token: user.token,
      json: { name: "KOReader", password: TEST_PASSWORD, scopes },
    });
    if (response.status !== 201) throw new Error(`device token: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { token: string }).token;
  }
  const appAuth = async (user: Caller) => ({ Authorization: basic(user.email, await deviceToken(user)) });

  async function book(fields: Record<string, unknown>): Promise<number> {
    const response = await t.call("POST", "/book", { token: admin.token, json: fields });
    return (await bodyAs(response, Book)).id;
  }

  async function versionWithFile(bookId: number, versionCode: number, zip: Uint8Array): Promise<number> {
    const created = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId, versionCode, versionName: `${versionCode}.0` },
    });
    const { id } = await bodyAs(created, BookVersion);
    const uploaded = await t.call("POST", `/bookversion/${id}/upload`, {
      token: admin.token,
      body: multipartFile(zip, { filename: "book.zip" }),
    });
    expect(uploaded.status).toBe(200);
    return id;
  }

  async function activate(bookId: number, user: Caller) {
    const response = await t.call("POST", "/activation", {
      token: admin.token,
      json: { bookId, userUuid: user.uuid },
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: number }).id;
  }

  /** `count` held books with a (file-less in the blob store) archive, straight into the database. */
  async function bulkShelf(user: Caller, count: number, prefix: string): Promise<number[]> {
    const { db } = t.deps;
    const ids: number[] = [];
    await withTransaction(db, async (tx) => {
      for (let i = 0; i < count; i++) {
        const now = new Date(t.clock.now().getTime() + i);
        const [row] = await tx.orm
          .insert(db.tables.book)
          .values({ title: `${prefix} ${String(i).padStart(3, "0")}`, createdAt: now, updatedAt: now })
          .returning();
        const sha256 = createHash("sha256").update(`${prefix}/${i}`).digest("hex");
        await tx.orm.insert(db.tables.blob).values({ sha256, size: 10, createdAt: now });
        await tx.orm.insert(db.tables.bookVersion).values({
          bookId: row!.id,
          versionCode: 1,
          versionName: "1",
          archiveSha256: sha256,
          archiveSize: 10,
          archiveFilename: "a.zip",
          archiveUploadedAt: now,
          createdAt: now,
          updatedAt: now,
        });
        await tx.orm
          .insert(db.tables.activation)
          .values({ bookId: row!.id, userUuid: user.uuid, createdAt: now, updatedAt: now });
        ids.push(row!.id);
      }
    });
    return ids;
  }

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
    auth = await appAuth(reader);
    const titles = [
      { title: "Plain Title", author: "Ann Author", language: "en" },
      { title: "Ærøskøbing – Gärten des Südens 書", author: "Jürgen Ößwald", language: "de-DE" },
      { title: `Tom & "Jerry" <at> 'home'`, author: null, language: null },
    ];
    for (const [index, fields] of titles.entries()) {
      const id = await book({ ...fields, description: `About ${fields.title}` });
      const zip = makeZip({
        "index.html": `<p>${fields.title}</p>`,
        [`n${index}.txt`]: "x".repeat(100 + index),
      });
      const versionId = await versionWithFile(id, 1, zip);
      const png = makePng({ width: 4 + index, height: 6, bitDepth: 8, colorType: 2 });
      const cover = await t.call("POST", `/book/${id}/cover`, {
        token: admin.token,
        body: multipartFile(png),
      });
      expect(cover.status).toBe(200);
      await activate(id, reader);
      t.clock.advance(1000);
      real.push({ id, versionId, title: fields.title, zip, png });
    }
    // Held, but no version with a file: not in any feed (an entry must offer an acquisition).
    await activate(await book({ title: "No file yet" }), reader);
  });
  afterAll(() => t.close());

  describe("the root", () => {
    test("OPDS 1.2 navigation: Atom with the OPDS namespaces, read by r2-opds-js as the two feeds and the search", async () => {
      const response = await get("/opds");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(NAVIGATION);
      expect(response.headers.get("vary")).toBe("Accept");
      const text = await response.text();
      checkAtomFeed(text, "navigation");
      const { opds1, opds2 } = readOpds1(text);
      expect(opds1.Title).toBe("bookdist");
      expect(opds2.navigation?.map((link) => [link.title, link.href, link.rel])).toEqual([
        ["My books", "/opds/shelf", "http://opds-spec.org/shelf"],
        ["Recently updated", "/opds/recent", "http://opds-spec.org/sort/new"],
      ]);
      const search = opds2.links?.find((link) => link.rel === "search");
      expect(search).toMatchObject({
        href: "/opds/search.xml",
        type: "application/opensearchdescription+xml",
      });
    });

    test("content negotiation: Accept application/opds+json gets the OPDS 2.0 root, the same as /opds/v2", async () => {
      const negotiated = await get("/opds", { ...auth, Accept: "application/opds+json" });
      expect(negotiated.headers.get("content-type")).toBe(OPDS2);
      expect(negotiated.headers.get("vary")).toBe("Accept");
      const body = (await jsonOf(negotiated)) as Opds2Feed;
      const direct = (await jsonOf(await get("/opds/v2"))) as Opds2Feed;
      expect(body).toEqual(direct);
      expectValidOpds2(body);
      expect(body.navigation?.map((link) => link.href)).toEqual(["/opds/v2/shelf", "/opds/v2/recent"]);
      expect(body.links.find((link) => link.rel === "search")).toEqual({
        rel: "search",
        href: "/opds/v2/search{?q}",
        type: OPDS2,
        templated: true,
      });
      // Atom asked for more than JSON, or */*: Atom.
      for (const accept of [
        "application/atom+xml, application/opds+json;q=0.5",
        "*/*",
        "application/opds+json;q=0",
      ]) {
        const response = await get("/opds", { ...auth, Accept: accept });
        expect(response.headers.get("content-type")).toBe(NAVIGATION);
      }
    });

    test("the OpenSearch description names the Atom search with {searchTerms}", async () => {
      const response = await get("/opds/search.xml");
      expect(response.headers.get("content-type")).toBe("application/opensearchdescription+xml");
      expect(checkOpenSearch(await response.text())).toBe("/opds/search?q={searchTerms}");
    });
  });

  describe("My books", () => {
    test("OPDS 1.2: r2-opds-js reads exactly the held books with files, newest activation first, titles as written", async () => {
      const response = await get("/opds/shelf");
      expect(response.headers.get("content-type")).toBe(ACQUISITION);
      const text = await response.text();
      checkAtomFeed(text, "acquisition");
      const { opds1, opds2 } = readOpds1(text);
      const newestFirst = real.toReversed();
      expect(opds1.Entries.map((entry) => entry.Id)).toEqual(
        newestFirst.map((b) => `urn:bookdist:book:${b.id}`),
      );
      expect(opds2.publications?.map((p) => p.metadata.title)).toEqual(newestFirst.map((b) => b.title));
      expect(opds2.metadata.numberOfItems).toBe(3);
      const [tom, garden, plain] = opds2.publications!;
      expect(plain!.metadata.author).toBe("Ann Author");
      expect(garden!.metadata.author).toBe("Jürgen Ößwald");
      expect(garden!.metadata.language).toBe("de-DE");
      expect(tom!.metadata.author).toBeUndefined();
      expect(tom!.metadata.language).toBeUndefined();
      for (const publication of opds2.publications!) {
        expect(publication.links.map((link) => [link.rel, link.type])).toEqual([
          ["http://opds-spec.org/acquisition", "application/zip"],
        ]);
        expect(publication.images?.map((link) => [link.rel, link.type])).toEqual([
          ["http://opds-spec.org/image", "image/png"],
          ["http://opds-spec.org/image/thumbnail", "image/png"],
        ]);
      }
      // The escaping writer: the title's markup characters are text, not elements.
      expect(text).toContain("<title>Tom &amp; &quot;Jerry&quot; &lt;at&gt; &apos;home&apos;</title>");
    });

    test("OPDS 2.0: valid against the schemas, the same publications and links as the Atom feed", async () => {
      const response = await get("/opds/v2/shelf");
      expect(response.headers.get("content-type")).toBe(OPDS2);
      const feed = (await jsonOf(response)) as Opds2Feed;
      expectValidOpds2(feed);
      const atom = readOpds1(await (await get("/opds/shelf")).text()).opds2;
      expect(feed.publications?.map((p) => [p.metadata.identifier, p.metadata.title])).toEqual(
        atom.publications!.map((p) => [p.metadata.identifier, p.metadata.title]),
      );
      expect(feed.metadata).toMatchObject({
        title: "My books",
        numberOfItems: 3,
        itemsPerPage: 50,
        currentPage: 1,
      });
      const [, garden] = feed.publications!;
      expect(garden!.metadata.author).toBe("Jürgen Ößwald");
      expect(garden!.images).toEqual([expect.objectContaining({ type: "image/png", width: 5, height: 6 })]);
    });

    test("empty: a reader without books gets valid feeds with no entries", async () => {
      const nobody = await t.user();
      const headers = await appAuth(nobody);
      const text = await (await get("/opds/shelf", headers)).text();
      checkAtomFeed(text, "acquisition");
      const { opds1, opds2 } = readOpds1(text);
      expect(opds1.Entries ?? []).toEqual([]);
      expect(opds1.OpensearchTotalResults).toBe(0);
      expect(opds2.publications ?? []).toEqual([]);
      const feed = (await jsonOf(await get("/opds/v2/shelf", headers))) as Opds2Feed;
      expectValidOpds2(feed);
      expect(feed.publications).toBeUndefined();
      expect(feed.metadata.numberOfItems).toBe(0);
      expect(
        feed.links
          .filter((l) => ["first", "last", "next", "previous"].includes(l.rel))
          .map((l) => [l.rel, l.href]),
      ).toEqual([
        ["first", "/opds/v2/shelf"],
        ["last", "/opds/v2/shelf"],
      ]);
    });

    test("paged by 50 with RFC 5005 links, in both formats, read by r2-opds-js and the schemas", async () => {
      const shelver = await t.user();
      const headers = await appAuth(shelver);
      const ids = await bulkShelf(shelver, 105, "Paged");
      const newestFirst = ids.toReversed().map((id) => `urn:bookdist:book:${id}`);
      const expected = [
        {
          page: 0,
          entries: newestFirst.slice(0, 50),
          links: { first: "", last: "?page=2", next: "?page=1" },
        },
        {
          page: 1,
          entries: newestFirst.slice(50, 100),
          links: { first: "", last: "?page=2", previous: "", next: "?page=2" },
        },
        {
          page: 2,
          entries: newestFirst.slice(100),
          links: { first: "", last: "?page=2", previous: "?page=1" },
        },
      ];
      for (const { page, entries, links } of expected) {
        const query = page === 0 ? "" : `?page=${page}`;
        const text = await (await get(`/opds/shelf${query}`, headers)).text();
        checkAtomFeed(text, "acquisition");
        const { opds1, opds2 } = readOpds1(text);
        expect(opds1.Entries.map((entry) => entry.Id)).toEqual(entries);
        const paging = Object.fromEntries(
          (opds2.links ?? [])
            .filter((l) => ["first", "last", "next", "previous"].includes(String(l.rel)))
            .map((l) => [String(l.rel), l.href.replace("/opds/shelf", "")]),
        );
        expect(paging).toEqual(links as Record<string, string>);
        expect(opds2.metadata.numberOfItems).toBe(105);
        expect(opds2.metadata.itemsPerPage).toBe(50);

        const feed = (await jsonOf(await get(`/opds/v2/shelf${query}`, headers))) as Opds2Feed;
        expectValidOpds2(feed);
        expect(feed.publications?.map((p) => p.metadata.identifier)).toEqual(entries);
        expect(feed.metadata).toMatchObject({ numberOfItems: 105, itemsPerPage: 50, currentPage: page + 1 });
        const jsonPaging = Object.fromEntries(
          feed.links
            .filter((l) => ["first", "last", "next", "previous"].includes(l.rel))
            .map((l) => [l.rel, l.href.replace("/opds/v2/shelf", "")]),
        );
        expect(jsonPaging).toEqual(links as Record<string, string>);
      }
      // Past the end: an empty, valid page; a page that is not a number: 400.
      const beyond = (await jsonOf(await get("/opds/v2/shelf?page=9", headers))) as Opds2Feed;
      expectValidOpds2(beyond);
      expect(beyond.publications).toBeUndefined();
      await expectProblem(await get("/opds/shelf?page=-1", headers), 400, "VALIDATION_FAILED");
      await expectProblem(await get("/opds/shelf?page=1e2", headers), 400, "VALIDATION_FAILED");
    });
  });

  describe("Recently updated", () => {
    test("the held books whose newest version changed in 90 days, most recent first, in both formats", async () => {
      const user = await t.user();
      const headers = await appAuth(user);
      const ids = await bulkShelf(user, 4, "Recent");
      const { db } = t.deps;
      const now = t.clock.now().getTime();
      // Book 0 changed 100 days ago (out), book 1 89 days ago, book 2 yesterday, book 3 now.
      const ages = [100 * DAY, 89 * DAY, DAY, 0];
      await withTransaction(db, async (tx) => {
        for (const [index, id] of ids.entries()) {
          await tx.orm
            .update(db.tables.bookVersion)
            .set({ updatedAt: new Date(now - ages[index]!) })
            .where(eq(db.tables.bookVersion.bookId, id));
        }
      });
      const expected = [ids[3], ids[2], ids[1]].map((id) => `urn:bookdist:book:${id}`);
      const text = await (await get("/opds/recent", headers)).text();
      checkAtomFeed(text, "acquisition");
      expect(readOpds1(text).opds1.Entries.map((entry) => entry.Id)).toEqual(expected);
      const feed = (await jsonOf(await get("/opds/v2/recent", headers))) as Opds2Feed;
      expectValidOpds2(feed);
      expect(feed.publications?.map((p) => p.metadata.identifier)).toEqual(expected);
      expect(feed.metadata).toMatchObject({ title: "Recently updated", numberOfItems: 3 });
      // Nothing changed lately: empty and valid.
      t.clock.advance(200 * DAY);
      try {
        const empty = (await jsonOf(await get("/opds/v2/recent", headers))) as Opds2Feed;
        expectValidOpds2(empty);
        expect(empty.metadata.numberOfItems).toBe(0);
        checkAtomFeed(await (await get("/opds/recent", headers)).text(), "acquisition");
      } finally {
        t.clock.advance(-200 * DAY);
      }
    });
  });

  describe("Search", () => {
    test("by title or author, case-insensitive, non-ASCII as written; paging links keep the terms", async () => {
      const byTitle = readOpds1(await (await get("/opds/search?q=plain")).text()).opds1;
      expect(byTitle.Entries.map((e) => e.Title)).toEqual(["Plain Title"]);
      const byAuthor = (await jsonOf(await get("/opds/v2/search?q=%C3%96%C3%9Fwald"))) as Opds2Feed;
      expectValidOpds2(byAuthor);
      expect(byAuthor.publications?.map((p) => p.metadata.title)).toEqual([real[1]!.title]);
      expect(byAuthor.metadata.title).toBe("Search results: Ößwald");
      const cjk = (await jsonOf(await get(`/opds/v2/search?q=${encodeURIComponent("書")}`))) as Opds2Feed;
      expect(cjk.publications?.map((p) => p.metadata.identifier)).toEqual([
        `urn:bookdist:book:${real[1]!.id}`,
      ]);
      expect(cjk.links.find((l) => l.rel === "self")?.href).toBe(
        `/opds/v2/search?q=${encodeURIComponent("書")}`,
      );
      const text = await (await get(`/opds/search?q=${encodeURIComponent('"Jerry"')}`)).text();
      checkAtomFeed(text, "acquisition");
      expect(readOpds1(text).opds1.Entries.map((e) => e.Title)).toEqual([real[2]!.title]);
    });

    test("LIKE's own characters match only themselves; no terms → 400; paged with the terms", async () => {
      for (const q of ["%", "_", "\\"]) {
        const feed = (await jsonOf(await get(`/opds/v2/search?q=${encodeURIComponent(q)}`))) as Opds2Feed;
        expectValidOpds2(feed);
        expect(feed.metadata.numberOfItems).toBe(0);
      }
      await expectProblem(await get("/opds/search"), 400, "VALIDATION_FAILED");
      await expectProblem(await get("/opds/v2/search?q=%20%20"), 400, "VALIDATION_FAILED");
      const searcher = await t.user();
      const headers = await appAuth(searcher);
      await bulkShelf(searcher, 60, "Findable");
      const feed = (await jsonOf(await get("/opds/v2/search?q=findable", headers))) as Opds2Feed;
      expectValidOpds2(feed);
      expect(feed.publications).toHaveLength(50);
      expect(feed.links.find((l) => l.rel === "next")?.href).toBe("/opds/v2/search?q=findable&page=1");
      const next = (await jsonOf(await get("/opds/v2/search?q=findable&page=1", headers))) as Opds2Feed;
      expect(next.publications).toHaveLength(10);
      expect(next.metadata.numberOfItems).toBe(60);
      // Past the end: no rows to count from, the total still right.
      const beyond = (await jsonOf(await get("/opds/v2/search?q=findable&page=5", headers))) as Opds2Feed;
      expectValidOpds2(beyond);
      expect(beyond.metadata).toMatchObject({ numberOfItems: 60, currentPage: 6 });
      expect(beyond.links.find((l) => l.rel === "last")?.href).toBe("/opds/v2/search?q=findable&page=1");
      // Another reader's books are not found.
      const mine = (await jsonOf(await get("/opds/v2/search?q=findable"))) as Opds2Feed;
      expect(mine.metadata.numberOfItems).toBe(0);
    });
  });

  describe("credentials, as reading apps send them", () => {
    async function expectChallenge(response: Response, withBody = true) {
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Basic realm="bookdist"');
      expect(response.headers.get("content-type")).toBe(AUTH_DOC);
      expect(response.headers.get("link")).toBe(
        '</opds/auth>; rel="http://opds-spec.org/auth/document"; type="application/opds-authentication+json"',
      );
      expect(response.headers.get("x-request-id")).toBeTruthy();
      if (!withBody) return;
      const document = await jsonOf(response);
      if (schemas) {
        validators ??= opds2Validators();
        expect(validators.authentication(document)).toEqual([]);
      }
      expect(document).toMatchObject({ authentication: [{ type: "http://opds-spec.org/auth/basic" }] });
      return document;
    }

    test("Thorium: an unauthenticated GET → 401 with the authentication document; the retry with Basic → the feed", async () => {
      const document = await expectChallenge(await t.call("GET", "/opds"));
      const published = await t.call("GET", "/opds/auth");
      expect(published.status).toBe(200);
      expect(published.headers.get("content-type")).toBe(AUTH_DOC);
      expect(await jsonOf(published)).toEqual(document);
      const retry = await get("/opds", auth);
      expect(retry.status).toBe(200);
      checkAtomFeed(await retry.text(), "navigation");
      // The account's own password works as HTTP Basic does everywhere (scripts).
      expect((await get("/opds", { Authorization: basic(reader.email) })).status).toBe(200);
      // A device token without the opds scope, or a revoked one, is refused with the same challenge.
      const syncOnly = basic(reader.email, await deviceToken(reader, ["sync"]));
      await expectChallenge(await t.call("GET", "/opds/v2/shelf", { headers: { Authorization: syncOnly } }));
      const revoked = await t.call("POST", "/authentication/device-token", {
        token: reader.token,
        json: { name: "Thorium", password: TEST_PASSWORD, scopes: ["opds"] },
      });
      const { id, token } = (await revoked.json()) as { id: number; token: string };
      const withRevoked = { Authorization: basic(reader.email, token) };
      expect((await get("/opds/v2/shelf", withRevoked)).status).toBe(200);
      expect(
        (await t.call("DELETE", `/authentication/device-token/${id}`, { token: reader.token })).status,
      ).toBe(200);
      await expectChallenge(await get("/opds/v2/shelf", withRevoked));
      // A device token is good only on its scopes' operations: not on the JSON API.
      await expectProblem(await get("/book/my-books"), 401, "AUTHENTICATION_FAILED");
      // Wrong credentials: the same challenge, on every feed of both formats.
      for (const path of ["/opds/shelf", "/opds/v2/recent", "/opds/v2/search?q=x", "/opds/search.xml"]) {
        await expectChallenge(
          await t.call("GET", path, { headers: { Authorization: basic(reader.email, "wrong") } }),
        );
      }
      // A Bearer token from the API's login works too (the app's own clients).
      expect((await t.call("GET", "/opds/v2/shelf", { token: reader.token })).status).toBe(200);
    });

    test("a client that asks for problem+json keeps the API's problem, with the same challenge", async () => {
      const response = await t.call("GET", "/opds/v2/shelf", {
        headers: { Accept: "application/problem+json" },
      });
      expect(response.headers.get("www-authenticate")).toBe('Basic realm="bookdist"');
      expect(response.headers.get("link")).toContain("</opds/auth>");
      expect(response.headers.get("content-type")).toBe("application/problem+json; charset=UTF-8");
      await expectProblem(response, 401, "UNAUTHORIZED");
    });

    test("KOReader: HEAD with Basic, then GET with Accept: application/opds+json", async () => {
      const head = await t.call("HEAD", "/opds", { headers: { ...auth, Accept: "application/opds+json" } });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toBe(OPDS2);
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      const getJson = await get("/opds", { ...auth, Accept: "application/opds+json" });
      expect(getJson.status).toBe(200);
      const root = (await jsonOf(getJson)) as Opds2Feed;
      expectValidOpds2(root);
      const shelf = await get(root.navigation![0]!.href, { ...auth, Accept: "application/opds+json" });
      expectValidOpds2(await jsonOf(shelf));
      // HEAD without credentials: the challenge's headers, no body.
      const anonymous = await t.call("HEAD", "/opds/v2/shelf");
      await expectChallenge(anonymous, false);
      expect((await anonymous.arrayBuffer()).byteLength).toBe(0);
    });

    test("credentials on the first request only: cover and download by the signed links alone, Range/ETag/HEAD as every download", async () => {
      const feed = (await jsonOf(await get("/opds/v2/shelf"))) as Opds2Feed;
      const garden = feed.publications!.find(
        (p) => p.metadata.identifier === `urn:bookdist:book:${real[1]!.id}`,
      )!;
      const download = garden.links[0]!.href;
      expect(download).toMatch(
        new RegExp(`^/opds/download/${reader.uuid}/${real[1]!.versionId}\\?exp=\\d+&sig=[A-Za-z0-9_-]{43}$`),
      );
      const file = await t.call("GET", download);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("application/zip");
      const disposition = file.headers.get("content-disposition") ?? "";
      expect(disposition).toStartWith("attachment; filename=");
      expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent(`${real[1]!.title}-1.0.zip`)}`);
      const bytes = new Uint8Array(await file.arrayBuffer());
      expect(bytes).toEqual(real[1]!.zip);
      const etag = file.headers.get("etag")!;
      expect(etag).toBe(`"${createHash("sha256").update(real[1]!.zip).digest("hex")}"`);
      const head = await t.call("HEAD", download);
      expect(head.status).toBe(200);
      expect(head.headers.get("content-length")).toBe(String(bytes.length));
      expect((await head.arrayBuffer()).byteLength).toBe(0);
      const range = await t.call("GET", download, { headers: { Range: "bytes=0-9" } });
      expect(range.status).toBe(206);
      expect(range.headers.get("content-range")).toBe(`bytes 0-9/${bytes.length}`);
      expect(new Uint8Array(await range.arrayBuffer())).toEqual(bytes.slice(0, 10));
      expect((await t.call("GET", download, { headers: { "If-None-Match": etag } })).status).toBe(304);
      await expectProblem(
        await t.call("GET", download, { headers: { Range: "bytes=9999-" } }),
        416,
        "RANGE_NOT_SATISFIABLE",
      );

      const cover = await t.call("GET", garden.images![0]!.href);
      expect(cover.status).toBe(200);
      expect(cover.headers.get("content-type")).toBe("image/png");
      expect(new Uint8Array(await cover.arrayBuffer())).toEqual(real[1]!.png);
      // The Atom feed's links open the same way.
      const atom = readOpds1(await (await get("/opds/shelf")).text()).opds2;
      const atomDownload = atom.publications![0]!.links[0]!.href;
      expect((await t.call("GET", atomDownload)).status).toBe(200);
    });
  });

  describe("EPUBs", () => {
    test("an EPUB is offered and served as application/epub+zip, named '<author> - <title>.epub' (RFC 6266 filename*)", async () => {
      const user = await t.user();
      const headers = await appAuth(user);
      const id = await book({ title: "Die Gärten", author: "Jürgen Ößwald" });
      const epub = buildEpub("unicode");
      await versionWithFile(id, 1, epub);
      const zipOnly = await book({ title: "Plain zip" });
      await versionWithFile(zipOnly, 1, makeZip({ "a.txt": "a" }));
      await activate(zipOnly, user);
      await activate(id, user);
      const text = await (await get("/opds/shelf", headers)).text();
      checkAtomFeed(text, "acquisition");
      const atom = readOpds1(text).opds2;
      expect(atom.publications!.map((p) => p.links[0]!.type)).toEqual([
        "application/epub+zip",
        "application/zip",
      ]);
      const feed = (await jsonOf(await get("/opds/v2/shelf", headers))) as Opds2Feed;
      expectValidOpds2(feed);
      expect(feed.publications!.map((p) => p.links[0]!.type)).toEqual([
        "application/epub+zip",
        "application/zip",
      ]);
      const file = await t.call("GET", feed.publications![0]!.links[0]!.href);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("application/epub+zip");
      const disposition = file.headers.get("content-disposition") ?? "";
      expect(disposition).toBe(
        `attachment; filename="Jurgen O_wald - Die Garten.epub"; filename*=UTF-8''${encodeURIComponent("Jürgen Ößwald - Die Gärten.epub")}`,
      );
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(epub);
      const head = await t.call("HEAD", feed.publications![0]!.links[0]!.href);
      expect(head.headers.get("content-type")).toBe("application/epub+zip");
      const zip = await t.call("GET", feed.publications![1]!.links[0]!.href);
      expect(zip.headers.get("content-type")).toBe("application/zip");
      expect(zip.headers.get("content-disposition")).toContain('filename="Plain zip-1.0.zip"');
    });
  });

  describe("signed links", () => {
    async function links() {
      const feed = (await jsonOf(await get("/opds/v2/shelf"))) as Opds2Feed;
      const plain = feed.publications!.find(
        (p) => p.metadata.identifier === `urn:bookdist:book:${real[0]!.id}`,
      )!;
      return { download: plain.links[0]!.href, cover: plain.images![0]!.href };
    }

    test("a changed signature, expiry, user or file → 403; credentials do not stand in for the signature", async () => {
      const { download, cover } = await links();
      const url = new URL(download, "http://x");
      const sig = url.searchParams.get("sig")!;
      const exp = Number(url.searchParams.get("exp"));
      const other = await t.user();
      await activate(real[0]!.id, other);
      const forged = [
        `${url.pathname}?exp=${exp}&sig=${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`,
        `${url.pathname}?exp=${exp + 60}&sig=${sig}`,
        `${url.pathname.replace(reader.uuid, other.uuid)}?exp=${exp}&sig=${sig}`,
        `/opds/download/${reader.uuid}/${real[1]!.versionId}?exp=${exp}&sig=${sig}`,
        // The cover's signature on the download's path.
        `${url.pathname}?exp=${exp}&sig=${new URL(cover, "http://x").searchParams.get("sig")}`,
      ];
      for (const link of forged) await expectProblem(await t.call("GET", link), 403, "FORBIDDEN");
      await expectProblem(await t.call("GET", forged[0]!, { headers: auth }), 403, "FORBIDDEN");
      await expectProblem(await t.call("GET", `${url.pathname}?exp=${exp}`), 400, "VALIDATION_FAILED");
      expect((await t.call("GET", download)).status).toBe(200);
    });

    test("valid for 24 hours", async () => {
      const { download, cover } = await links();
      t.clock.advance(DAY - 1000);
      try {
        expect((await t.call("GET", download)).status).toBe(200);
        t.clock.advance(2000);
        await expectProblem(await t.call("GET", download), 403, "FORBIDDEN");
        await expectProblem(await t.call("GET", cover), 403, "FORBIDDEN");
      } finally {
        t.clock.advance(-(DAY + 1000));
      }
    });

    test("bound to the exact file, and to the entitlement at download time", async () => {
      const user = await t.user();
      const headers = await appAuth(user);
      const id = await book({ title: "Replaced" });
      await versionWithFile(id, 1, makeZip({ "a.txt": "first" }));
      const activationId = await activate(id, user);
      const linkOf = async () => {
        const feed = (await jsonOf(await get("/opds/v2/shelf", headers))) as Opds2Feed;
        return feed.publications![0]!.links[0]!.href;
      };
      const first = await linkOf();
      expect((await t.call("GET", first)).status).toBe(200);
      // A newer version: the old link still opens the old version's file (its own bytes)...
      await versionWithFile(id, 2, makeZip({ "a.txt": "second" }));
      expect((await t.call("GET", first)).status).toBe(200);
      const second = await linkOf();
      expect(second).not.toBe(first);
      // ...but a file replaced under the same version is no longer the one signed.
      const versionId = Number(new URL(second, "http://x").pathname.split("/").pop());
      const replaced = await t.call("POST", `/bookversion/${versionId}/upload`, {
        token: admin.token,
        body: multipartFile(makeZip({ "a.txt": "third" }), { filename: "b.zip" }),
      });
      expect(replaced.status).toBe(200);
      await expectProblem(await t.call("GET", second), 403, "FORBIDDEN");
      // The activation ends: the links stop at once, whatever their expiry.
      const fresh = await linkOf();
      expect((await t.call("GET", fresh)).status).toBe(200);
      expect((await t.call("DELETE", `/activation/${activationId}`, { token: admin.token })).status).toBe(
        200,
      );
      await expectProblem(await t.call("GET", fresh), 403, "FORBIDDEN");
    });
  });
});
