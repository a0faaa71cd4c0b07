// POST /apk/upload (an APK record made from its file) and POST /apk/{id}/activate (the active APK
// of its kind, every other field kept) of API.md §10: what the console's APK screen does, and the
// walk-through's activation, which a PUT made by wiping the release notes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Apk } from "../../src/routes/apks/apks.schemas";
import expected from "../fixtures/apk/expected.json" with { type: "json" };
import { ApkWorkshop, type KeyStore, requireAndroidTools } from "../helpers/android-tools";
import { bodyAs, expectProblem } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const FIXTURES = join(import.meta.dir, "../fixtures/apk");
const fixture = (file: string) => Bun.file(join(FIXTURES, file)).bytes();
const facts = (file: string) => expected.apks.find((apk) => apk.file === file)!;

describe("an APK record from its file, and activating it", () => {
  let t: TestApp;
  let admin: { token: string };
  let reader: { token: string };

  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.admin();
    reader = await t.user();
  });
  afterAll(() => t.close());

  const uploadNew = async (bytes: Uint8Array, query: string, token = admin.token) =>
    t.call("POST", `/apk/upload${query}`, {
      token,
      body: multipartFile(bytes, { filename: "app-release.apk" }),
    });
  const activate = (id: number, query = "", token = admin.token) =>
    t.call("POST", `/apk/${id}/activate${query}`, { token });
  const auditOf = async (id: number) => {
    const response = await t.call("GET", `/audit-event?targetType=apk&targetId=${id}`, {
      token: admin.token,
    });
    return ((await response.json()) as { action: string; changes: Record<string, unknown> }[]).map(
      (e) => e.action,
    );
  };

  let bookappId: number;

  test("201: versionCode, versionName, package, minSdk and signer read from the file; inactive", async () => {
    const file = "tinyapp-v1v2v3.apk";
    const bytes = await fixture(file);
    const response = await uploadNew(bytes, "?kind=bookapp");
    expect(response.status).toBe(201);
    const apk = await bodyAs(response, Apk);
    const want = facts(file);
    expect(apk).toMatchObject({
      kind: "bookapp",
      versionCode: want.versionCode,
      versionName: want.versionName,
      packageName: want.packageName,
      minSdk: want.minSdk,
      signerSha256: want.signerSha256,
      releaseNotes: null,
      active: false,
      file: { size: want.size, sha256: want.sha256, filename: "app-release.apk" },
    });
    expect(response.headers.get("Location")).toBe(`/apk/${apk.id}`);
    bookappId = apk.id;
    expect(await auditOf(apk.id)).toEqual(["apk.upload"]);
  });

  test("409 CONFLICT for an existing (kind, versionCode); the other kind takes it", async () => {
    const other = await fixture("tinyapp-v2-ecdsa-p256.apk");
    const problem = await expectProblem(await uploadNew(other, "?kind=bookapp"), 409, "CONFLICT");
    expect(problem.detail).toContain("versionCode 10");
    const launcher = await uploadNew(other, "?kind=launcher");
    expect(launcher.status).toBe(201);
    expect((await bodyAs(launcher, Apk)).kind).toBe("launcher");
  });

  test("400 without a valid kind, 415 for a file that is not an APK", async () => {
    const bytes = await fixture("tinyapp-v1v2v3.apk");
    for (const query of ["", "?kind=", "?kind=phone", "?kind=BOOKAPP"]) {
      await expectProblem(await uploadNew(bytes, query), 400, "VALIDATION_FAILED");
    }
    const zip = makeZip({ "hello.txt": "not an app" });
    await expectProblem(await uploadNew(zip, "?kind=launcher"), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("activate: 200, active, every other field kept (the release notes a PUT would need again)", async () => {
    const current = await bodyAs(await t.call("GET", `/apk/${bookappId}`, { token: admin.token }), Apk);
    const put = await t.call("PUT", `/apk/${bookappId}`, {
      token: admin.token,
      json: {
        kind: "bookapp",
        versionCode: current.versionCode,
        versionName: "1.0",
        releaseNotes: "Faster.",
      },
    });
    expect(put.status).toBe(200);
    const response = await activate(bookappId);
    expect(response.status).toBe(200);
    const apk = await bodyAs(response, Apk);
    expect(apk).toMatchObject({ id: bookappId, active: true, releaseNotes: "Faster.", versionName: "1.0" });
    expect(apk.file).toEqual(current.file);
    expect(await auditOf(bookappId)).toEqual(["apk.activate", "apk.update", "apk.upload"]);
    // Again: it stays active, nothing else changes.
    const again = await bodyAs(await activate(bookappId), Apk);
    expect(again).toMatchObject({ active: true, releaseNotes: "Faster." });
  });

  test("409 without a file; 404 for an unknown APK; 400 for a malformed id", async () => {
    const created = await t.call("POST", "/apk", {
      token: admin.token,
      json: { kind: "bookapp", versionCode: 99, versionName: "9.9" },
    });
    const { id } = await bodyAs(created, Apk);
    await expectProblem(await activate(id), 409, "CONFLICT");
    await expectProblem(await activate(999_999), 404, "NOT_FOUND");
    await expectProblem(
      await t.call("POST", "/apk/x/activate", { token: admin.token }),
      400,
      "VALIDATION_FAILED",
    );
  });

  test("admins only: 401 without credentials, 403 for a reader", async () => {
    const bytes = await fixture("tinyapp-v1v2v3.apk");
    await expectProblem(
      await t.call("POST", "/apk/upload?kind=bookapp", { body: multipartFile(bytes) }),
      401,
      "UNAUTHORIZED",
    );
    await expectProblem(await uploadNew(bytes, "?kind=bookapp", reader.token), 403, "FORBIDDEN");
    await expectProblem(await t.call("POST", `/apk/${bookappId}/activate`), 401, "UNAUTHORIZED");
    await expectProblem(await activate(bookappId, "", reader.token), 403, "FORBIDDEN");
  });

  describe.if(requireAndroidTools("aapt", "apksigner", "keytool"))("another signer", () => {
    let workshop: ApkWorkshop;
    let key: KeyStore;
    beforeAll(() => {
      workshop = new ApkWorkshop();
      key = workshop.key("EC");
    });
    afterAll(() => workshop.dispose());

    test("409 that says to pass allowSignerChange=true; with it, the new one is active and the old one not", async () => {
      const built = await workshop.build({ versionCode: 11, signer: key, schemes: { v1: false } });
      const created = await bodyAs(await uploadNew(built.bytes, "?kind=bookapp"), Apk);
      expect(created.versionCode).toBe(11);
      const problem = await expectProblem(await activate(created.id), 409, "CONFLICT");
      expect(problem.detail).toContain("allowSignerChange=true");
      const response = await activate(created.id, "?allowSignerChange=true");
      expect(response.status).toBe(200);
      expect((await bodyAs(response, Apk)).active).toBe(true);
      const old = await bodyAs(await t.call("GET", `/apk/${bookappId}`, { token: admin.token }), Apk);
      expect(old).toMatchObject({ active: false, releaseNotes: "Faster." });
      // Rolling back is activating the earlier build, across the same signer change.
      await expectProblem(await activate(bookappId), 409, "CONFLICT");
      const back = await bodyAs(await activate(bookappId, "?allowSignerChange=true"), Apk);
      expect(back).toMatchObject({ active: true, releaseNotes: "Faster." });
      const active = (await (await t.call("GET", "/apk/active")).json()) as { bookapp: { id: number } };
      expect(active.bookapp.id).toBe(bookappId);
    });
  });
});
