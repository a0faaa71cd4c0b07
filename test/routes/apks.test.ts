// APK uploads read the package, versionCode, minSdk and signer from the file (apksigner is the
// oracle for the signer), refuse builds that devices could not update to, and the update check
// (GET /apk/active + conditional downloads) gives a device everything it needs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ActiveApks, Apk, ApkList } from "../../src/routes/apks/apks.schemas";
import {
  ApkWorkshop,
  aaptBadging,
  apksignerSigner,
  type KeyStore,
  requireAndroidTools,
} from "../helpers/android-tools";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const OTHER_PACKAGE = "org.example.bookdist.tinyapp.v2";
const hasAndroidTools = requireAndroidTools("aapt", "apksigner", "keytool");

describe.if(hasAndroidTools)("APK metadata and update checks", () => {
  let t: TestApp;
  let admin: { token: string };
  let reader: { token: string };
  let workshop: ApkWorkshop;
  let keyA: KeyStore;
  let keyB: KeyStore;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
    workshop = new ApkWorkshop();
    keyA = workshop.key("RSA");
    keyB = workshop.key("EC");
  });
  afterAll(async () => {
    workshop.dispose();
    await t.close();
  });

  const build = (versionCode: number, signer: KeyStore | null, packageName?: string) =>
    workshop.build({ versionCode, signer, packageName, schemes: { v1: false } });
  const create = async (kind: string, versionCode: number) => {
    const response = await t.call("POST", "/apk", {
      token: admin.token,
      json: { kind, versionCode, versionName: `${versionCode}.0` },
    });
    expect(response.status).toBe(201);
    return (await bodyAs(response, Apk)).id;
  };
  const upload = (id: number, bytes: Uint8Array, query = "") =>
    t.call("POST", `/apk/${id}/upload${query}`, {
      token: admin.token,
      body: multipartFile(bytes, { filename: "app-release.apk" }),
    });
  const activate = (id: number, versionCode: number, kind = "bookapp") =>
    t.call("PUT", `/apk/${id}`, {
      token: admin.token,
      json: { kind, versionCode, versionName: `${versionCode}.0`, active: true },
    });
  const record = async (id: number) =>
    await bodyAs(await t.call("GET", `/apk/${id}`, { token: admin.token }), Apk);

  let firstId: number;
  let first: { path: string; bytes: Uint8Array };

  test("an upload records package, minSdk and signer as aapt and apksigner read them", async () => {
    firstId = await create("bookapp", 100);
    first = await build(100, keyA);
    const response = await upload(firstId, first.bytes);
    expect(response.status).toBe(200);
    const apk = await bodyAs(response, Apk);
    const badging = aaptBadging(first.path);
    expect(apk).toMatchObject({
      versionCode: badging.versionCode,
      packageName: badging.packageName,
      minSdk: badging.minSdk,
      signerSha256: apksignerSigner(first.path),
      file: { size: first.bytes.length, sha256: sha256(first.bytes) },
    });
    expect(await record(firstId)).toEqual(apk);
    expect((await activate(firstId, 100)).status).toBe(200);
  });

  test("a file whose versionCode is not the record's → 409 naming both", async () => {
    const id = await create("bookapp", 101);
    const response = await upload(id, first.bytes);
    const problem = await expectProblem(response, 409, "CONFLICT");
    expect(problem.detail).toContain("versionCode 100");
    expect(problem.detail).toContain("versionCode 101");
    expect((await record(id)).file).toBeNull();
  });

  test("another signer than the active APK's → 409, unless allowSignerChange=true", async () => {
    const id = await create("bookapp", 102);
    const other = await build(102, keyB);
    const refused = await upload(id, other.bytes);
    const problem = await expectProblem(refused, 409, "CONFLICT");
    expect(problem.detail).toContain(apksignerSigner(other.path));
    expect(problem.detail).toContain(apksignerSigner(first.path));
    expect((await upload(id, other.bytes, "?allowSignerChange=false")).status).toBe(409);
    expect((await upload(id, other.bytes, "?allowSignerChange=yes")).status).toBe(400);
    expect((await record(id)).file).toBeNull();

    const allowed = await upload(id, other.bytes, "?allowSignerChange=true");
    expect(allowed.status).toBe(200);
    expect((await bodyAs(allowed, Apk)).signerSha256).toBe(apksignerSigner(other.path));
  });

  test("another package than the active APK's → 409, unless allowSignerChange=true", async () => {
    const id = await create("bookapp", 103);
    const renamed = await build(103, keyA, OTHER_PACKAGE);
    const refused = await upload(id, renamed.bytes);
    expect((await expectProblem(refused, 409, "CONFLICT")).detail).toContain(OTHER_PACKAGE);
    const allowed = await upload(id, renamed.bytes, "?allowSignerChange=true");
    expect(allowed.status).toBe(200);
    expect((await bodyAs(allowed, Apk)).packageName).toBe(OTHER_PACKAGE);
  });

  test("same package and signer is accepted; the launcher is checked against the launcher only", async () => {
    const id = await create("bookapp", 104);
    expect((await upload(id, (await build(104, keyA)).bytes)).status).toBe(200);
    const launcher = await create("launcher", 104);
    expect((await upload(launcher, (await build(104, keyB)).bytes)).status).toBe(200);
  });

  test("an unsigned APK over a signed active one is a signer change: 409 unless allowSignerChange=true", async () => {
    const id = await create("bookapp", 105);
    const unsigned = await build(105, null);
    const refused = await upload(id, unsigned.bytes);
    const problem = await expectProblem(refused, 409, "CONFLICT");
    expect(problem.detail).toContain("unsigned");
    expect(problem.detail).toContain(apksignerSigner(first.path));
    expect((await record(id)).file).toBeNull();

    const response = await upload(id, unsigned.bytes, "?allowSignerChange=true");
    expect(response.status).toBe(200);
    expect(await bodyAs(response, Apk)).toMatchObject({ signerSha256: null, versionCode: 105 });

    // Making it active is the same change.
    const activation = await activate(id, 105);
    expect((await expectProblem(activation, 409, "CONFLICT")).detail).toContain("unsigned");
    expect((await record(id)).active).toBe(false);
    expect((await record(firstId)).active).toBe(true);
  });

  test("making an APK of another signer active → 409 unless allowSignerChange=true", async () => {
    // APK 102 holds keyB's build (uploaded with allowSignerChange); the active bookapp is keyA's.
    const otherSigner = (
      await bodyAs(await t.call("GET", "/apk?sort=versionCode", { token: admin.token }), ApkList.schema)
    ).find((apk) => apk.versionCode === 102)!.id;
    const refused = await activate(otherSigner, 102);
    expect((await expectProblem(refused, 409, "CONFLICT")).detail).toContain(apksignerSigner(first.path));
    expect((await record(firstId)).active).toBe(true);
    expect((await record(otherSigner)).active).toBe(false);

    const allowed = await t.call("PUT", `/apk/${otherSigner}?allowSignerChange=true`, {
      token: admin.token,
      json: { kind: "bookapp", versionCode: 102, versionName: "102.0", active: true },
    });
    expect(allowed.status).toBe(200);
    expect((await record(firstId)).active).toBe(false);
    // Back to keyA's build for the tests below: a signer change again, so it needs the flag too.
    expect((await activate(firstId, 100)).status).toBe(409);
    const back = await t.call("PUT", `/apk/${firstId}?allowSignerChange=true`, {
      token: admin.token,
      json: { kind: "bookapp", versionCode: 100, versionName: "100.0", active: true },
    });
    expect(back.status).toBe(200);
  });

  test("a zip whose AndroidManifest.xml cannot be read → 415", async () => {
    const id = await create("bookapp", 106);
    const response = await upload(id, makeZip({ "AndroidManifest.xml": "<manifest/>", "classes.dex": "x" }));
    await expectProblem(response, 415, "UNSUPPORTED_MEDIA_TYPE");
    expect((await record(id)).file).toBeNull();
  });

  test("the active APK's file cannot be replaced, nor an uploaded APK's versionCode changed", async () => {
    const replaced = await upload(firstId, first.bytes);
    expect((await expectProblem(replaced, 409, "CONFLICT")).detail).toContain("active");
    const renumbered = await t.call("PUT", `/apk/${firstId}`, {
      token: admin.token,
      json: { kind: "bookapp", versionCode: 999, versionName: "9.9" },
    });
    expect(renumbered.status).toBe(409);
    expect((await record(firstId)).versionCode).toBe(100);
  });

  test("GET /apk/active carries what an update check needs, with this build's public download URL", async () => {
    const response = await t.call("GET", "/apk/active");
    expect(response.status).toBe(200);
    const active = await bodyAs(response, ActiveApks);
    expect(active.launcher).toBeNull();
    expect(active.bookapp).toMatchObject({
      id: firstId,
      versionCode: 100,
      minSdk: 23,
      signerSha256: apksignerSigner(first.path),
      file: { size: first.bytes.length, sha256: sha256(first.bytes) },
      downloadUrl: `/apk/${firstId}/download?sha256=${sha256(first.bytes)}`,
    });
    // Root-relative without PUBLIC_URL: the client resolves it against the server it called.
    const download = await t.call("GET", active.bookapp!.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get("etag")).toBe(`"${sha256(first.bytes)}"`);
    // The URL names these bytes only: caches may keep it for good.
    expect(download.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(new Uint8Array(first.bytes));
  });

  test("PUBLIC_URL is the base of downloadUrl", async () => {
    const behindProxy = await createTestApp({ env: { PUBLIC_URL: "https://books.example.com" } });
    try {
      const token = (await behindProxy.admin()).token;
      const created = await behindProxy.call("POST", "/apk", {
        token,
        json: { kind: "launcher", versionCode: 100, versionName: "1.0" },
      });
      const id = (await bodyAs(created, Apk)).id;
      await behindProxy.call("POST", `/apk/${id}/upload`, { token, body: multipartFile(first.bytes) });
      await behindProxy.call("PUT", `/apk/${id}`, {
        token,
        json: { kind: "launcher", versionCode: 100, versionName: "1.0", active: true },
      });
      const active = await bodyAs(await behindProxy.call("GET", "/apk/active"), ActiveApks);
      expect(active.launcher?.downloadUrl).toBe(
        `https://books.example.com/apk/${id}/download?sha256=${sha256(first.bytes)}`,
      );
    } finally {
      await behindProxy.close();
    }
  });

  test("fixed download paths answer the active file's ETag; If-None-Match → 304 until another APK is activated", async () => {
    const path = "/apk/download/activebookapp";
    const before = await t.call("GET", path);
    const etag = before.headers.get("etag")!;
    expect(etag).toBe(`"${sha256(first.bytes)}"`);
    const notModified = await t.call("GET", path, { headers: { "If-None-Match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag);
    expect((await t.call("HEAD", path, { headers: { "If-None-Match": etag } })).status).toBe(304);

    // Activate 104 (same signer, uploaded above): the fixed path now serves other bytes.
    const next = await bodyAs(
      await t.call("GET", "/apk?sort=versionCode", { token: admin.token }),
      ApkList.schema,
    );
    const apk104 = next.find((apk) => apk.kind === "bookapp" && apk.versionCode === 104)!;
    expect((await activate(apk104.id, 104)).status).toBe(200);
    const changed = await t.call("GET", path, { headers: { "If-None-Match": etag } });
    expect(changed.status).toBe(200);
    const newEtag = changed.headers.get("etag");
    expect(newEtag).toBe(`"${apk104.file!.sha256}"`);
    expect(newEtag).not.toBe(etag);
    expect(sha256(new Uint8Array(await changed.arrayBuffer()))).toBe(apk104.file!.sha256);
    expect((await t.call("GET", path, { headers: { "If-None-Match": newEtag! } })).status).toBe(304);
  });

  test("download by id is public only while the APK is active", async () => {
    // 100 was active and is not any more.
    const url = `/apk/${firstId}/download`;
    await expectProblem(await t.call("GET", url), 401, "UNAUTHORIZED");
    expect((await t.call("GET", url, { token: reader.token })).status).toBe(403);
    expect((await t.call("GET", url, { token: admin.token })).status).toBe(200);
    const active = await bodyAs(await t.call("GET", "/apk/active"), ActiveApks);
    const current = await t.call("GET", active.bookapp!.downloadUrl.split("?")[0]!);
    expect(current.status).toBe(200);
    expect(current.headers.get("cache-control")).toBe("public, no-cache");
    expect(current.headers.get("content-disposition")).toContain('filename="bookapp-104.0.apk"');
  });

  test("a versioned download URL serves only the bytes it names", async () => {
    const active = (await bodyAs(await t.call("GET", "/apk/active"), ActiveApks)).bookapp!;
    const [pathname] = active.downloadUrl.split("?") as [string];
    const versioned = `${pathname}?sha256=${active.file!.sha256}`;
    const immutable = await t.call("GET", versioned, { headers: { Range: "bytes=0-9" } });
    expect(immutable.status).toBe(206);
    expect(immutable.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await t.call("HEAD", versioned)).status).toBe(200);

    // Other bytes than the APK holds: gone, for anyone, never the current file instead.
    const stale = `${pathname}?sha256=${sha256(first.bytes)}`;
    expect(sha256(first.bytes)).not.toBe(active.file!.sha256);
    const gone = await t.call("GET", stale);
    await expectProblem(gone, 404, "NOT_FOUND");
    expect((await t.call("GET", stale, { token: admin.token })).status).toBe(404);

    for (const bad of ["abc", active.file!.sha256.toUpperCase(), `${active.file!.sha256}0`]) {
      const response = await t.call("GET", `${pathname}?sha256=${bad}`);
      await expectProblem(response, 400, "VALIDATION_FAILED");
    }
  });

  test("an inactive APK's versioned URL stays admin-only, private, and 404 once its file is replaced", async () => {
    const id = await create("bookapp", 107);
    const built = await build(107, keyA);
    expect((await upload(id, built.bytes)).status).toBe(200);
    const url = `/apk/${id}/download?sha256=${sha256(built.bytes)}`;
    expect((await t.call("GET", url)).status).toBe(401);
    expect((await t.call("GET", url, { token: reader.token })).status).toBe(403);
    const asAdmin = await t.call("GET", url, { token: admin.token });
    expect(asAdmin.status).toBe(200);
    expect(asAdmin.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");

    // Same versionCode, other bytes (another package name): the old URL must not serve them.
    const rebuilt = await build(107, keyA, OTHER_PACKAGE);
    expect((await upload(id, rebuilt.bytes, "?allowSignerChange=true")).status).toBe(200);
    expect((await t.call("GET", url, { token: admin.token })).status).toBe(404);
    const fresh = await t.call("GET", `/apk/${id}/download?sha256=${sha256(rebuilt.bytes)}`, {
      token: admin.token,
    });
    expect(fresh.status).toBe(200);
    expect(sha256(new Uint8Array(await fresh.arrayBuffer()))).toBe(sha256(rebuilt.bytes));
  });
});

describe.if(hasAndroidTools)("moving an active APK to another kind", () => {
  let t: TestApp;
  let admin: { token: string };
  let workshop: ApkWorkshop;
  let keyA: KeyStore;
  let keyB: KeyStore;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    workshop = new ApkWorkshop();
    keyA = workshop.key("RSA");
    keyB = workshop.key("EC");
  });
  afterAll(async () => {
    workshop.dispose();
    await t.close();
  });

  /** A record of `kind` with `signer`'s build uploaded and made active. */
  const activeApk = async (kind: string, versionCode: number, signer: KeyStore) => {
    const created = await t.call("POST", "/apk", {
      token: admin.token,
      json: { kind, versionCode, versionName: `${versionCode}.0` },
    });
    const id = (await bodyAs(created, Apk)).id;
    const built = await workshop.build({ versionCode, signer, schemes: { v1: false } });
    const uploaded = await t.call("POST", `/apk/${id}/upload`, {
      token: admin.token,
      body: multipartFile(built.bytes, { filename: "app-release.apk" }),
    });
    expect(uploaded.status).toBe(200);
    const activated = await t.call("PUT", `/apk/${id}`, {
      token: admin.token,
      json: { kind, versionCode, versionName: `${versionCode}.0`, active: true },
    });
    expect(activated.status).toBe(200);
    return { id, signer: apksignerSigner(built.path) };
  };
  const moveTo = (id: number, kind: string, versionCode: number, query = "") =>
    t.call("PUT", `/apk/${id}${query}`, {
      token: admin.token,
      json: { kind, versionCode, versionName: `${versionCode}.0` },
    });
  const record = async (id: number) =>
    await bodyAs(await t.call("GET", `/apk/${id}`, { token: admin.token }), Apk);

  test("is checked against the target kind's active APK, and takes its place", async () => {
    const launcher = await activeApk("launcher", 1, keyB);
    const bookappA = await activeApk("bookapp", 2, keyA);

    const refused = await moveTo(bookappA.id, "launcher", 2);
    const problem = await expectProblem(refused, 409, "CONFLICT");
    expect(problem.detail).toContain(bookappA.signer);
    expect(problem.detail).toContain(launcher.signer);
    expect(await record(bookappA.id)).toMatchObject({ kind: "bookapp", active: true });
    expect((await record(launcher.id)).active).toBe(true);

    const allowed = await moveTo(bookappA.id, "launcher", 2, "?allowSignerChange=true");
    expect(allowed.status).toBe(200);
    expect(await record(bookappA.id)).toMatchObject({ kind: "launcher", active: true });
    expect((await record(launcher.id)).active).toBe(false);
    const active = await bodyAs(await t.call("GET", "/apk/active"), ActiveApks);
    expect(active.launcher?.id).toBe(bookappA.id);
    expect(active.bookapp).toBeNull();
  });

  test("with the same signer it needs no flag", async () => {
    const bookapp = await activeApk("bookapp", 3, keyA);
    // The active launcher is now keyA's build moved over above.
    const moved = await moveTo(bookapp.id, "launcher", 3);
    expect(moved.status).toBe(200);
    expect(await record(bookapp.id)).toMatchObject({ kind: "launcher", active: true });
  });
});
