import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import QRCode from "qrcode";
import { queuedWrite } from "../../src/db/transaction";
import { cleanupBlobs } from "../../src/jobs/blob-cleanup";
import { ActiveApks, Apk, ApkList } from "../../src/routes/apks/apks.schemas";
import { BookVersion, BookVersionList } from "../../src/routes/book-versions/book-versions.schemas";
import { Book, BookResource } from "../../src/routes/books/books.schemas";
import type { LocalBlobStore } from "../../src/storage/blob-store";
import { ApkWorkshop, type KeyStore, requireAndroidTools } from "../helpers/android-tools";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");

/** Every file under the blob root, temp files included. */
function filesUnder(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("covers", () => {
  let t: TestApp;
  let admin: { token: string };
  let bookId: number;
  let png: Uint8Array<ArrayBuffer>;
  beforeAll(async () => {
    t = await createTestApp({ env: { MAX_COVER_BYTES: "64KiB" } });
    admin = await t.admin();
    bookId = (
      await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title: "Covered" } }), Book)
    ).id;
    png = new Uint8Array(await QRCode.toBuffer("cover", { width: 300 }));
  });
  afterAll(() => t.close());

  const upload = (body: FormData | Uint8Array, id = bookId, headers: Record<string, string> = {}) =>
    t.call("POST", `/book/${id}/cover`, { token: admin.token, body: body as RequestInit["body"], headers });

  test("a PNG is stored with its size, hash and dimensions, and served publicly", async () => {
    const response = await upload(multipartFile(png, { filename: "cover.txt" }));
    expect(response.status).toBe(200);
    const book = await bodyAs(response, Book);
    expect(book.cover).toMatchObject({
      contentType: "image/png",
      size: png.length,
      sha256: sha256(png),
      width: 300,
      height: 300,
    });

    const download = await t.call("GET", `/book/${bookId}/cover`);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("image/png");
    expect(download.headers.get("etag")).toBe(`"${sha256(png)}"`);
    expect(download.headers.get("cache-control")).toContain("public");
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(png);

    const again = await t.call("GET", `/book/${bookId}/cover`, {
      headers: { "If-None-Match": `"${sha256(png)}"` },
    });
    expect(again.status).toBe(304);
  });

  test("the cover is sent inline, named after the book's title made safe", async () => {
    const title = 'Über "Bücher"/Teil\u202e2: ../x';
    const id = (await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title } }), Book))
      .id;
    expect((await upload(multipartFile(png), id)).status).toBe(200);
    for (const method of ["GET", "HEAD"] as const) {
      const response = await t.call(method, `/book/${id}/cover`);
      expect(response.status).toBe(200);
      // No quote, slash or bidi override survives; the ASCII fallback folds the accents.
      expect(response.headers.get("content-disposition")).toBe(
        `inline; filename="Uber BucherTeil2: ..x.png"; filename*=UTF-8''%C3%9Cber%20B%C3%BCcherTeil2%3A%20..x.png`,
      );
    }
  });

  test("cover upload and book delete answer HAL with _links when asked for it", async () => {
    const hal = { Accept: "application/hal+json" };
    const id = (
      await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title: "HAL" } }), Book)
    ).id;
    const links = {
      self: { href: `/book/${id}` },
      cover: { href: `/book/${id}/cover` },
    };
    const uploaded = await upload(multipartFile(png), id, hal);
    expect(uploaded.status).toBe(200);
    expect(uploaded.headers.get("content-type")).toStartWith("application/hal+json");
    const withCover = await bodyAs(uploaded, BookResource.hal);
    expect(Book.parse(withCover).cover?.sha256).toBe(sha256(png));
    expect(withCover._links).toMatchObject(links);

    const deleted = await t.call("DELETE", `/book/${id}`, { token: admin.token, headers: hal });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get("content-type")).toStartWith("application/hal+json");
    const gone = await bodyAs(deleted, BookResource.hal);
    expect(Book.parse(gone).id).toBe(id);
    expect(gone._links).toMatchObject(links);
  });

  test("a file that is not a PNG is 415, whatever its name; nothing is stored", async () => {
    const before = filesUnder((t.deps.blobs as LocalBlobStore).root).length;
    const response = await upload(
      multipartFile(new TextEncoder().encode("GIF89a not really"), {
        filename: "x.png",
        contentType: "image/png",
      }),
    );
    await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(filesUnder((t.deps.blobs as LocalBlobStore).root).length).toBe(before);
  });

  test("over MAX_COVER_BYTES is 413; a missing part is 400; JSON instead of multipart is 415", async () => {
    const big = new Uint8Array(100 * 1024);
    big.set(png);
    const tooLarge = await upload(multipartFile(big));
    await expectProblem(tooLarge, 413, "PAYLOAD_TOO_LARGE");

    const missing = await upload(multipartFile(png, { field: "image" }));
    await expectProblem(missing, 400, "VALIDATION_FAILED");

    const json = await t.call("POST", `/book/${bookId}/cover`, { token: admin.token, json: { file: "x" } });
    expect(json.status).toBe(415);
  });

  test("unknown book → 404 for upload and download; a book without cover → 404", async () => {
    expect((await upload(multipartFile(png), 999_999)).status).toBe(404);
    expect((await t.call("GET", "/book/999999/cover")).status).toBe(404);
    const bare = (
      await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title: "Bare" } }), Book)
    ).id;
    const response = await t.call("GET", `/book/${bare}/cover`);
    await expectProblem(response, 404, "NOT_FOUND");
  });
});

describe("book versions and archives", () => {
  let t: TestApp;
  let admin: { token: string };
  let reader: { token: string; uuid: string };
  let bookId: number;
  const archiveV1 = makeZip({ "book/chapter1.html": "<h1>One</h1>", "book/meta.json": "{}" });
  const archiveV2 = makeZip({ "book/chapter1.html": "<h1>One, revised</h1>".repeat(500) });
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
    bookId = (
      await bodyAs(
        await t.call("POST", "/book", { token: admin.token, json: { title: 'Tales: "1/2"' } }),
        Book,
      )
    ).id;
  });
  afterAll(() => t.close());

  const createVersion = async (versionCode: number, versionName = `${versionCode}.0`) => {
    const response = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId, versionCode, versionName },
    });
    expect(response.status).toBe(201);
    return await bodyAs(response, BookVersion);
  };
  const uploadArchive = (id: number, bytes: Uint8Array) =>
    t.call("POST", `/bookversion/${id}/upload`, {
      token: admin.token,
      body: multipartFile(bytes, { filename: "book.zip" }),
    });

  test("create, get, list, count, update, duplicate versionCode → 409, unknown book → 400", async () => {
    const v1 = await createVersion(1);
    expect(v1).toMatchObject({
      bookId,
      versionCode: 1,
      versionName: "1.0",
      releaseNotes: null,
      archive: null,
    });
    const duplicate = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId, versionCode: 1, versionName: "again" },
    });
    await expectProblem(duplicate, 409, "CONFLICT");
    const orphan = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId: 424242, versionCode: 1, versionName: "x" },
    });
    const problem = await expectProblem(orphan, 400, "VALIDATION_FAILED");
    expect(problem.errors![0]!.path).toBe("bookId");

    const updated = await t.call("PUT", `/bookversion/${v1.id}`, {
      token: admin.token,
      json: { bookId, versionCode: 1, versionName: "1.0.1", releaseNotes: " notes " },
    });
    expect(await bodyAs(updated, BookVersion)).toMatchObject({
      versionName: "1.0.1",
      releaseNotes: "notes",
    });
    expect(await (await t.call("GET", "/bookversion/count", { token: admin.token })).text()).toBe("1");
    const ofBook = await t.call("GET", `/book/${bookId}/bookversions?sort=versionCode,desc`, {
      token: reader.token,
    });
    expect(ofBook.headers.get("x-total-count")).toBe("1");
    expect((await t.call("GET", `/bookversion/${v1.id}`, { token: reader.token })).status).toBe(200);
    expect((await t.call("GET", "/book/999999/bookversions", { token: reader.token })).status).toBe(404);
  });

  test("an archive upload checks the zip; a lying file is 415", async () => {
    const [version] = await bodyAs(
      await t.call("GET", `/book/${bookId}/bookversions`, { token: admin.token }),
      BookVersionList.schema,
    );
    const notZip = await uploadArchive(
      version!.id,
      new TextEncoder().encode("PK\u0003\u0004 but then nothing"),
    );
    expect(notZip.status).toBe(415);
    const ok = await uploadArchive(version!.id, archiveV1);
    expect(ok.status).toBe(200);
    expect((await bodyAs(ok, BookVersion)).archive).toMatchObject({
      size: archiveV1.length,
      sha256: sha256(archiveV1),
      filename: "book.zip",
    });
  });

  test("downloads need an activation (entitled) unless admin", async () => {
    const [version] = await bodyAs(
      await t.call("GET", `/book/${bookId}/bookversions`, { token: admin.token }),
      BookVersionList.schema,
    );
    const denied = await t.call("GET", `/bookversion/${version!.id}/download`, { token: reader.token });
    expect(denied.status).toBe(403);
    expect((await t.call("GET", `/book/${bookId}/newest-book-version`, { token: reader.token })).status).toBe(
      403,
    );

    const { db } = t.deps;
    const now = t.clock.now();
    await queuedWrite(db, (tx) =>
      tx.orm
        .insert(db.tables.activation)
        .values({ bookId, userUuid: reader.uuid, createdAt: now, updatedAt: now }),
    );
    const allowed = await t.call("GET", `/bookversion/${version!.id}/download`, { token: reader.token });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("content-type")).toBe("application/zip");
    expect(allowed.headers.get("cache-control")).toContain("private");
    const disposition = allowed.headers.get("content-disposition") ?? "";
    expect(disposition).toStartWith("attachment;");
    expect(disposition).toContain("filename*=UTF-8''");
    expect(disposition).not.toContain("/");
    expect(new Uint8Array(await allowed.arrayBuffer())).toEqual(archiveV1);
    const adminDownload = await t.call("GET", `/bookversion/${version!.id}/download`, { token: admin.token });
    expect(adminDownload.status).toBe(200);
  });

  test("the newest version is the highest versionCode that has an archive", async () => {
    const v3 = await createVersion(3); // no archive yet
    const v2 = await createVersion(2);
    expect((await uploadArchive(v2.id, archiveV2)).status).toBe(200);
    const newest = await t.call("GET", `/book/${bookId}/newest-book-version`, { token: reader.token });
    expect(newest.headers.get("etag")).toBe(`"${sha256(archiveV2)}"`);
    expect(newest.headers.get("content-disposition")).toContain("2.0.zip");
    await uploadArchive(v3.id, archiveV1);
    const after = await t.call("GET", `/book/${bookId}/newest-book-version`, { token: reader.token });
    expect(after.headers.get("etag")).toBe(`"${sha256(archiveV1)}"`);
  });

  test("ranges: a-b, a-, -n, If-Range, 416, HEAD", async () => {
    const [version] = await bodyAs(
      await t.call("GET", `/book/${bookId}/bookversions?sort=versionCode`, { token: admin.token }),
      BookVersionList.schema,
    );
    const url = `/bookversion/${version!.id}/download`;
    const get = (headers: Record<string, string>, method = "GET") =>
      t.call(method, url, { token: admin.token, headers });
    const size = archiveV1.length;

    const first = await get({ Range: "bytes=0-9" });
    expect(first.status).toBe(206);
    expect(first.headers.get("content-range")).toBe(`bytes 0-9/${size}`);
    expect(new Uint8Array(await first.arrayBuffer())).toEqual(archiveV1.slice(0, 10));

    const tail = await get({ Range: "bytes=-22" });
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(archiveV1.slice(size - 22));
    const open = await get({ Range: `bytes=${size - 5}-` });
    expect(open.headers.get("content-length")).toBe("5");

    const unsatisfiable = await get({ Range: `bytes=${size}-` });
    await expectProblem(unsatisfiable, 416, "RANGE_NOT_SATISFIABLE");
    expect(unsatisfiable.headers.get("content-range")).toBe(`bytes */${size}`);

    const etag = `"${sha256(archiveV1)}"`;
    expect((await get({ Range: "bytes=0-9", "If-Range": etag })).status).toBe(206);
    expect((await get({ Range: "bytes=0-9", "If-Range": '"stale"' })).status).toBe(200);

    const head = await get({}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(size));
    expect(head.headers.get("accept-ranges")).toBe("bytes");
    expect(head.headers.get("last-modified")).toBeTruthy();
    expect(await head.text()).toBe("");
  });

  test("replacing and deleting release blobs to the cleanup job, which spares young files", async () => {
    const v9 = await createVersion(9);
    const unique = makeZip({ "only-here.txt": crypto.randomUUID() });
    await uploadArchive(v9.id, unique);
    const path = (t.deps.blobs as LocalBlobStore).pathOf(sha256(unique));
    const deleted = await t.call("DELETE", `/bookversion/${v9.id}`, { token: admin.token });
    expect(deleted.status).toBe(200);
    expect((await t.call("GET", `/bookversion/${v9.id}`, { token: admin.token })).status).toBe(404);

    const young = await cleanupBlobs(t.deps);
    expect(young.rows).toBe(0);
    expect(await Bun.file(path).exists()).toBe(true);

    t.clock.advance(2 * 60 * 60 * 1000);
    // The file's own age counts too: make it look old.
    const { utimesSync } = await import("node:fs");
    const old = new Date(t.clock.now().getTime() - 3 * 60 * 60 * 1000);
    for (const file of filesUnder((t.deps.blobs as LocalBlobStore).root)) utimesSync(file, old, old);
    const swept = await cleanupBlobs(t.deps);
    expect(swept.rows).toBeGreaterThanOrEqual(1);
    expect(await Bun.file(path).exists()).toBe(false);
    // Referenced archives survive.
    const [kept] = await bodyAs(
      await t.call("GET", `/book/${bookId}/bookversions?sort=versionCode`, { token: admin.token }),
      BookVersionList.schema,
    );
    expect(await Bun.file((t.deps.blobs as LocalBlobStore).pathOf(kept!.archive!.sha256)).exists()).toBe(
      true,
    );
  });
});

describe("uploads that fail half-way", () => {
  test("a client that aborts mid-upload leaves no blob, no temp file and no changed row", async () => {
    const t = await createTestApp();
    const admin = await t.admin();
    const bookId = (
      await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title: "Aborted" } }), Book)
    ).id;
    const version = (
      await bodyAs(
        await t.call("POST", "/bookversion", {
          token: admin.token,
          json: { bookId, versionCode: 1, versionName: "1" },
        }),
        BookVersion,
      )
    ).id;

    const boundary = "----bookdist-abort";
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.zip"\r\nContent-Type: application/zip\r\n\r\n`,
    );
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0) controller.enqueue(head);
        else if (sent < 20) controller.enqueue(new Uint8Array(64 * 1024).fill(80));
        else controller.error(new Error("client went away"));
        sent++;
      },
    });
    const response = await t
      .call("POST", `/bookversion/${version}/upload`, {
        token: admin.token,
        headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
        body,
      })
      .catch((error: unknown) => error);
    if (response instanceof Response) expect(response.status).toBeGreaterThanOrEqual(400);
    expect(filesUnder((t.deps.blobs as LocalBlobStore).root)).toEqual([]);
    const row = await bodyAs(
      await t.call("GET", `/bookversion/${version}`, { token: admin.token }),
      BookVersion,
    );
    expect(row.archive).toBeNull();
    const { db } = t.deps;
    expect(await db.orm.select().from(db.tables.blob)).toEqual([]);
    await t.close();
  });
});

// The APK tests upload real signed builds; the covers and book versions need no outside tool.
describe.if(requireAndroidTools("apksigner", "keytool"))("APKs", () => {
  let t: TestApp;
  let admin: { token: string };
  // Real APKs whose versionCode matches their record's, signed by one throw-away key.
  let workshop: ApkWorkshop;
  let key: KeyStore;
  const builds = new Map<number, Uint8Array<ArrayBuffer>>();
  const apkOf = async (versionCode: number) => {
    if (!builds.has(versionCode)) {
      builds.set(
        versionCode,
        (await workshop.build({ versionCode, signer: key, schemes: { v1: false } })).bytes,
      );
    }
    return builds.get(versionCode)!;
  };
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    workshop = new ApkWorkshop();
    key = workshop.key("EC");
  });
  afterAll(async () => {
    workshop.dispose();
    await t.close();
  });

  const createApk = (json: Record<string, unknown>) => t.call("POST", "/apk", { token: admin.token, json });
  /** A new APK record, created as `json` says. */
  const newApk = async (json: Record<string, unknown>) => {
    const response = await createApk(json);
    expect(response.status).toBe(201);
    return await bodyAs(response, Apk);
  };
  const uploadApk = (id: number, bytes: Uint8Array) =>
    t.call("POST", `/apk/${id}/upload`, {
      token: admin.token,
      body: multipartFile(bytes, { filename: "app-release.apk" }),
    });
  const activate = (id: number, versionCode: number, kind = "bookapp") =>
    t.call("PUT", `/apk/${id}`, {
      token: admin.token,
      json: { kind, versionCode, versionName: `${versionCode}.0`, active: true },
    });

  test("nothing active yet: /apk/active has nulls, fixed downloads are 404", async () => {
    const active = await t.call("GET", "/apk/active");
    expect(await bodyAs(active, ActiveApks)).toEqual({ bookapp: null, launcher: null });
    expect((await t.call("GET", "/apk/download/activebookapp")).status).toBe(404);
    expect((await t.call("GET", "/apk/download/activelauncher")).status).toBe(404);
  });

  test("create; active on creation or without a file → 409; a zip without a manifest → 415", async () => {
    const created = await createApk({ kind: "bookapp", versionCode: 10, versionName: "1.0" });
    expect(created.status).toBe(201);
    const apk = await bodyAs(created, Apk);
    expect(apk).toMatchObject({ kind: "bookapp", active: false, file: null, packageName: null });
    expect((await createApk({ kind: "bookapp", versionCode: 10, versionName: "dup" })).status).toBe(409);
    expect(
      (await createApk({ kind: "bookapp", versionCode: 11, versionName: "x", active: true })).status,
    ).toBe(409);
    expect((await createApk({ kind: "tablet", versionCode: 11, versionName: "x" })).status).toBe(400);
    expect((await activate(apk.id, 10)).status).toBe(409);
    const notApk = await uploadApk(apk.id, makeZip({ "classes.dex": "dex" }));
    expect(notApk.status).toBe(415);
  });

  test("upload, activate, and devices fetch it from the fixed path with an ETag", async () => {
    const apk = await newApk({ kind: "bookapp", versionCode: 20, versionName: "2.0" });
    const apkBytes = await apkOf(20);
    const uploaded = await uploadApk(apk.id, apkBytes);
    expect(uploaded.status).toBe(200);
    expect((await bodyAs(uploaded, Apk)).file).toMatchObject({
      size: apkBytes.length,
      sha256: sha256(apkBytes),
    });
    expect((await activate(apk.id, 20)).status).toBe(200);

    const active = await bodyAs(await t.call("GET", "/apk/active"), ActiveApks);
    expect(active.bookapp).toMatchObject({ id: apk.id, versionCode: 20, active: true });
    expect(active.bookapp!.file.sha256).toBe(sha256(apkBytes));
    expect(active.launcher).toBeNull();

    const download = await t.call("GET", "/apk/download/activebookapp");
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/octet-stream");
    expect(download.headers.get("content-disposition")).toContain('filename="bookapp-20.0.apk"');
    expect(download.headers.get("etag")).toBe(`"${sha256(apkBytes)}"`);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(apkBytes);
    const conditional = await t.call("GET", "/apk/download/activebookapp", {
      headers: { "If-None-Match": `"${sha256(apkBytes)}"` },
    });
    expect(conditional.status).toBe(304);
    expect((await t.call("GET", `/apk/${apk.id}/download`, { token: admin.token })).status).toBe(200);
  });

  test("activating another APK of the kind deactivates the previous one", async () => {
    const apk = await newApk({ kind: "bookapp", versionCode: 30, versionName: "3.0" });
    expect((await uploadApk(apk.id, await apkOf(30))).status).toBe(200);
    expect((await activate(apk.id, 30)).status).toBe(200);
    const all = await bodyAs(
      await t.call("GET", "/apk?sort=versionCode", { token: admin.token }),
      ApkList.schema,
    );
    expect(all.filter((apk) => apk.active).map((apk) => apk.versionCode)).toEqual([30]);
    expect((await bodyAs(await t.call("GET", "/apk/active"), ActiveApks)).bookapp?.versionCode).toBe(30);
  });

  test("concurrent activations of two APKs of one kind leave exactly one active", async () => {
    const ids: number[] = [];
    for (const code of [40, 41, 42, 43]) {
      const apk = await newApk({ kind: "launcher", versionCode: code, versionName: `${code}` });
      expect((await uploadApk(apk.id, await apkOf(code))).status).toBe(200);
      ids.push(apk.id);
    }
    const results = await Promise.all(ids.map((id, i) => activate(id, 40 + i, "launcher")));
    expect(results.every((response) => response.status === 200 || response.status === 409)).toBe(true);
    const { db } = t.deps;
    const active = (await db.orm.select().from(db.tables.apk)).filter(
      (apk) => apk.kind === "launcher" && apk.active,
    );
    expect(active).toHaveLength(1);
  });

  test("delete answers the deleted APK; list, count and HAL", async () => {
    const apk = await newApk({ kind: "launcher", versionCode: 99, versionName: "9.9" });
    const deleted = await t.call("DELETE", `/apk/${apk.id}`, { token: admin.token });
    expect((await bodyAs(deleted, Apk)).id).toBe(apk.id);
    expect((await t.call("GET", `/apk/${apk.id}`, { token: admin.token })).status).toBe(404);
    const count = Number(await (await t.call("GET", "/apk/count", { token: admin.token })).text());
    const hal = await bodyAs(
      await t.call("GET", "/apk", { token: admin.token, headers: { Accept: "application/hal+json" } }),
      ApkList.hal,
    );
    expect(hal._embedded.apks).toHaveLength(count);
  });
});
