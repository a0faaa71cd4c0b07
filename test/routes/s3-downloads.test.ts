// Every download with STORAGE=s3 against a real Ceph RADOS Gateway, in both S3_DOWNLOADS modes:
// redirect (302 to a presigned URL the bucket answers with the app's headers and Range) and proxy
// (the app streams the object with every §6 semantic); a bucket that cannot be reached is a 503.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import QRCode from "qrcode";
import type { Deps } from "../../src/deps";
import { contentDisposition } from "../../src/http/file-response";
import { Apk } from "../../src/routes/apks/apks.schemas";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { CHECK_INTERVAL_MS } from "../../src/services/health-checks";
import { S3BlobStore } from "../../src/storage/s3-blob-store";
import { consoleRequest, signedInAdmin } from "../console/helpers";
import { ApkWorkshop, requireAndroidTools } from "../helpers/android-tools";
import { requireCeph } from "../helpers/ceph";
import { bodyAs, expectProblem } from "../helpers/responses";
import { s3Env } from "../helpers/s3-env";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const ceph = requireCeph();
const androidTools = ceph && requireAndroidTools("apksigner", "keytool");

interface Download {
  path: string;
  token?: string;
  /** Refused to a reader without an activation. */
  entitled?: boolean;
  bytes: Uint8Array<ArrayBuffer>;
  contentType: string;
  disposition: string;
}

for (const mode of ["redirect", "proxy"] as const) {
  describe.if(ceph)(`downloads with STORAGE=s3, S3_DOWNLOADS=${mode}`, () => {
    let t: TestApp;
    let admin: { token: string };
    let bookId: number;
    const downloads: Download[] = [];
    let workshop: ApkWorkshop | undefined;

    beforeAll(async () => {
      t = await createTestApp({ env: await s3Env(mode, { S3_PRESIGN_TTL: "2m" }) });
      admin = await t.admin();
      const book = await bodyAs(
        await t.call("POST", "/book", { token: admin.token, json: { title: "Clouds: 1/2" } }),
        Book,
      );
      bookId = book.id;
      const png = new Uint8Array(await QRCode.toBuffer(`cover ${mode}`, { width: 200 }));
      expect(
        (await t.call("POST", `/book/${book.id}/cover`, { token: admin.token, body: multipartFile(png) }))
          .status,
      ).toBe(200);
      downloads.push({
        path: `/book/${book.id}/cover`,
        bytes: png,
        contentType: "image/png",
        disposition: contentDisposition("inline", "Clouds: 1/2.png"),
      });

      const version = await bodyAs(
        await t.call("POST", "/bookversion", {
          token: admin.token,
          json: { bookId: book.id, versionCode: 3, versionName: "3.0" },
        }),
        BookVersion,
      );
      const zip = makeZip({ "book/chapter.html": `<p>${mode}</p>`.repeat(2000) });
      expect(
        (
          await t.call("POST", `/bookversion/${version.id}/upload`, {
            token: admin.token,
            body: multipartFile(zip, { filename: "book.zip" }),
          })
        ).status,
      ).toBe(200);
      // The title made safe, then the version: what the local driver's download names it.
      const disposition = contentDisposition("attachment", "Clouds: 1/2-3.0.zip");
      for (const path of [`/bookversion/${version.id}/download`, `/book/${book.id}/newest-book-version`]) {
        downloads.push({
          path,
          token: admin.token,
          entitled: true,
          bytes: zip,
          contentType: "application/zip",
          disposition,
        });
      }

      if (androidTools) {
        workshop = new ApkWorkshop();
        const key = workshop.key("EC");
        const apkBytes = (await workshop.build({ versionCode: 7, signer: key, schemes: { v1: false } }))
          .bytes;
        const apk = await bodyAs(
          await t.call("POST", "/apk", {
            token: admin.token,
            json: { kind: "launcher", versionCode: 7, versionName: "7.0" },
          }),
          Apk,
        );
        const uploaded = await t.call("POST", `/apk/${apk.id}/upload`, {
          token: admin.token,
          body: multipartFile(apkBytes, { filename: "app.apk" }),
        });
        expect(uploaded.status).toBe(200);
        const activated = await t.call("PUT", `/apk/${apk.id}`, {
          token: admin.token,
          json: { kind: "launcher", versionCode: 7, versionName: "7.0", active: true },
        });
        expect(activated.status).toBe(200);
        for (const path of [`/apk/${apk.id}/download`, "/apk/download/activelauncher"]) {
          downloads.push({
            path,
            token: admin.token,
            bytes: apkBytes,
            contentType: "application/octet-stream",
            disposition: contentDisposition("attachment", "launcher-7.0.apk"),
          });
        }
      }
    });
    afterAll(async () => {
      workshop?.dispose();
      await t.close();
    });

    test("every download: access check first, 304 from the app", async () => {
      expect(downloads.length).toBeGreaterThanOrEqual(androidTools ? 5 : 3);
      const reader = await t.user();
      for (const download of downloads) {
        if (download.entitled) {
          const denied = await t.call("GET", download.path, { token: reader.token });
          expect([401, 403]).toContain(denied.status);
        }
        const etag = `"${sha256(download.bytes)}"`;
        const again = await t.call("GET", download.path, {
          token: download.token,
          headers: { "If-None-Match": etag },
        });
        expect(again.status).toBe(304);
        expect(again.headers.get("etag")).toBe(etag);
        expect(again.headers.get("location")).toBeNull();
      }
    });

    test("the console's cover preview is streamed from its own origin, whatever S3_DOWNLOADS says", async () => {
      const { cookie } = await signedInAdmin(t);
      const page = await (await consoleRequest(t, "GET", `/console/books/${bookId}`, { cookie })).text();
      const src = /<img class="cover-preview" src="([^"]+)"/.exec(page)?.[1] ?? "";
      expect(src).toStartWith(`/console/books/${bookId}/cover`);
      const preview = await consoleRequest(t, "GET", src, { cookie });
      expect(preview.status).toBe(200);
      expect(preview.headers.get("location")).toBeNull();
      expect(preview.headers.get("content-type")).toBe("image/png");
      expect(preview.headers.get("cache-control")).toBe("no-store");
      const cover = downloads.find((download) => download.path === `/book/${bookId}/cover`);
      expect(new Uint8Array(await preview.arrayBuffer())).toEqual(cover!.bytes);
    });

    if (mode === "redirect") {
      test("302 to a presigned URL: private, no-store; the bucket answers bytes, headers and Range", async () => {
        for (const download of downloads) {
          for (const method of ["GET", "HEAD"] as const) {
            const response = await t.call(method, download.path, { token: download.token });
            expect(response.status).toBe(302);
            expect(response.headers.get("cache-control")).toBe("private, no-store");
            expect(response.headers.get("etag")).toBe(`"${sha256(download.bytes)}"`);
            const location = new URL(response.headers.get("location")!);
            expect(location.searchParams.get("X-Amz-Expires")).toBe("120");
            const whole = await fetch(location);
            expect(whole.status).toBe(200);
            expect(whole.headers.get("content-type")).toBe(download.contentType);
            expect(whole.headers.get("content-disposition")).toBe(download.disposition);
            expect(new Uint8Array(await whole.arrayBuffer())).toEqual(download.bytes);
            const part = await fetch(location, { headers: { Range: "bytes=10-19" } });
            expect(part.status).toBe(206);
            expect(part.headers.get("content-range")).toBe(`bytes 10-19/${download.bytes.length}`);
            expect(new Uint8Array(await part.arrayBuffer())).toEqual(download.bytes.subarray(10, 20));
          }
        }
      });

      test("a presigned URL stops working once it expires", async () => {
        const short = await createTestApp({ env: await s3Env("redirect", { S3_PRESIGN_TTL: "1s" }) });
        try {
          const token = (await short.admin()).token;
          const book = await bodyAs(
            await short.call("POST", "/book", { token, json: { title: "Brief" } }),
            Book,
          );
          const png = new Uint8Array(await QRCode.toBuffer("brief", { width: 100 }));
          await short.call("POST", `/book/${book.id}/cover`, { token, body: multipartFile(png) });
          const location = (await short.call("GET", `/book/${book.id}/cover`)).headers.get("location")!;
          expect((await fetch(location)).status).toBe(200);
          await Bun.sleep(2_100);
          expect((await fetch(location)).status).toBe(403);
        } finally {
          await short.close();
        }
      });
    } else {
      test("the app streams: 200, ranges, If-Range, 416, HEAD, with the local driver's headers", async () => {
        for (const download of downloads) {
          const { bytes, token } = download;
          const etag = `"${sha256(bytes)}"`;
          const whole = await t.call("GET", download.path, { token });
          expect(whole.status).toBe(200);
          expect(whole.headers.get("etag")).toBe(etag);
          expect(whole.headers.get("content-type")).toBe(download.contentType);
          expect(whole.headers.get("content-disposition")).toBe(download.disposition);
          expect(whole.headers.get("content-length")).toBe(String(bytes.length));
          expect(whole.headers.get("accept-ranges")).toBe("bytes");
          expect(new Uint8Array(await whole.arrayBuffer())).toEqual(bytes);

          for (const [range, start, end] of [
            ["bytes=5-9", 5, 9],
            ["bytes=20-", 20, bytes.length - 1],
            ["bytes=-7", bytes.length - 7, bytes.length - 1],
          ] as const) {
            const part = await t.call("GET", download.path, { token, headers: { Range: range } });
            expect(part.status).toBe(206);
            expect(part.headers.get("content-range")).toBe(`bytes ${start}-${end}/${bytes.length}`);
            expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.subarray(start, end + 1));
          }
          const stale = await t.call("GET", download.path, {
            token,
            headers: { Range: "bytes=0-3", "If-Range": '"not-the-etag"' },
          });
          expect(stale.status).toBe(200);
          expect((await stale.arrayBuffer()).byteLength).toBe(bytes.length);
          const matching = await t.call("GET", download.path, {
            token,
            headers: { Range: "bytes=0-3", "If-Range": etag },
          });
          expect(matching.status).toBe(206);
          await matching.arrayBuffer();
          const outside = await t.call("GET", download.path, {
            token,
            headers: { Range: `bytes=${bytes.length}-` },
          });
          await expectProblem(outside, 416, "RANGE_NOT_SATISFIABLE");
          expect(outside.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
          const head = await t.call("HEAD", download.path, { token });
          expect(head.status).toBe(200);
          expect(head.headers.get("content-length")).toBe(String(bytes.length));
          expect(await head.text()).toBe("");
        }
      });

      test("uploads are checked as on disk: a lying zip is 415 and nothing reaches the bucket", async () => {
        const storage = t.config.storage;
        if (storage.driver !== "s3") throw new Error("an S3 app");
        const s3 = t.deps.blobs as S3BlobStore;
        const version = await bodyAs(
          await t.call("POST", "/bookversion", {
            token: admin.token,
            json: {
              bookId,
              versionCode: 99,
              versionName: "lie",
            },
          }),
          BookVersion,
        );
        const lie = new TextEncoder().encode(`PK\u0003\u0004 but then nothing ${crypto.randomUUID()}`);
        const refused = await t.call("POST", `/bookversion/${version.id}/upload`, {
          token: admin.token,
          body: multipartFile(lie, { filename: "book.zip" }),
        });
        await expectProblem(refused, 415, "UNSUPPORTED_MEDIA_TYPE");
        expect(await s3.exists(sha256(lie))).toBe(false);
        const temp = await Array.fromAsync(new Bun.Glob("*.part").scan(`${t.dataDir}/blobs/tmp`));
        expect(temp).toEqual([]);
      });

      test("a bucket that cannot be reached: downloads, uploads and /health answer 503 with Retry-After", async () => {
        const deps = t.deps as Deps;
        const working = deps.blobs;
        const unreachable = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
        const endpoint = `http://127.0.0.1:${unreachable.port}`;
        unreachable.stop(true);
        const storage = t.config.storage;
        if (storage.driver !== "s3") throw new Error("an S3 app");
        deps.blobs = new S3BlobStore({ ...storage, endpoint }, `${t.dataDir}/blobs`);
        try {
          const download = downloads[0]!;
          const failed = await t.call("GET", download.path, { token: download.token });
          await expectProblem(failed, 503, "SERVICE_UNAVAILABLE");
          expect(failed.headers.get("retry-after")).toBe("5");
          const book = await bodyAs(
            await t.call("POST", "/book", { token: admin.token, json: { title: "Offline" } }),
            Book,
          );
          const png = new Uint8Array(await QRCode.toBuffer("offline", { width: 100 }));
          const upload = await t.call("POST", `/book/${book.id}/cover`, {
            token: admin.token,
            body: multipartFile(png),
          });
          await expectProblem(upload, 503, "SERVICE_UNAVAILABLE");
          expect((await t.call("GET", `/book/${book.id}/cover`)).status).toBe(404);
          // /health's checks stand for an interval (services/health-checks.ts): let it pass.
          t.clock.advance(CHECK_INTERVAL_MS);
          const health = await t.call("GET", "/health");
          expect(health.status).toBe(503);
          expect(await health.json()).toMatchObject({ storage: "unavailable", database: "ok" });
        } finally {
          deps.blobs = working;
        }
        t.clock.advance(CHECK_INTERVAL_MS);
        expect(((await (await t.call("GET", "/health")).json()) as { storage: string }).storage).toBe("ok");
      });
    }
  });
}
