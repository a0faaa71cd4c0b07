// The APK screen (API.md §10 /console/apks): an upload per kind whose package, versionCode and
// signer are read from the file and shown before activation; a duplicate versionCode is a 409 that
// says what to do, a file that is no APK a 415 beside the APK field; activate; another signer asks
// on a confirmation page (button Activate); roll back; a cross-site POST changes nothing.
// On SQLite or, with TEST_DATABASE_URL, Postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateApk } from "../../src/repositories/apks";
import { getActiveApks, getApk } from "../../src/services/apks";
import { expectedApks, fixtureBytes } from "../helpers/android-tools";
import { createTestApp, type TestApp } from "../helpers/test-app";
import { consoleRequest, expectLoginRedirect, signedInAdmin, textOf } from "./helpers";

const rsa = expectedApks.find((a) => a.file === "tinyapp-v1-rsa2048.apk")!;
const ecdsa = expectedApks.find((a) => a.file === "tinyapp-v2-ecdsa-p256.apk")!;

describe("console APKs", () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ cookie } = await signedInAdmin(t));
  });
  afterAll(() => t.close());

  const upload = (kind: string, bytes: Uint8Array, name: string, headers: Record<string, string> = {}) => {
    const body = new FormData();
    body.append(`apk-${kind}`, new File([bytes as Uint8Array<ArrayBuffer>], name));
    return consoleRequest(t, "POST", `/console/apks/upload?kind=${kind}`, { cookie, body, headers });
  };
  const idOf = (response: Response) =>
    Number(/\/console\/apks\/(\d+)/.exec(response.headers.get("location") ?? "")![1]);

  test("no session: to the sign-in page", async () => {
    expectLoginRedirect(await consoleRequest(t, "GET", "/console/apks"), "/console/apks");
  });

  test("the page: an upload form per kind with its APK field", async () => {
    const response = await consoleRequest(t, "GET", "/console/apks", { cookie });
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toMatch(/<label for="field-apk-bookapp">APK/);
    expect(html).toMatch(/<label for="field-apk-launcher">APK/);
    expect(html).toContain('enctype="multipart/form-data" data-upload=""');
  });

  test("upload: what the file says shown; activate; a duplicate versionCode is a 409 that says what to do", async () => {
    const uploaded = await upload("launcher", fixtureBytes(rsa.file), rsa.file);
    expect(uploaded.status).toBe(303);
    const id = idOf(uploaded);
    const shown = textOf(await (await consoleRequest(t, "GET", `/console/apks/${id}`, { cookie })).text());
    expect(shown).toContain(`Package ${rsa.packageName}`);
    expect(shown).toContain(`Version code ${rsa.versionCode}`);
    expect(shown).toContain(rsa.signerSha256!);
    expect(shown).toContain("State inactive");
    expect((await getApk(t.deps.db, id)).active).toBe(false);

    const activated = await consoleRequest(t, "POST", `/console/apks/${id}/activate`, { cookie, form: {} });
    expect(activated.status).toBe(303);
    expect((await getActiveApks(t.deps.db)).launcher?.id).toBe(id);

    const again = await upload("launcher", fixtureBytes(rsa.file), rsa.file);
    expect(again.status).toBe(409);
    const html = await again.text();
    expect(html).toMatch(
      /id="error-apk-launcher">There is already a launcher APK with versionCode 10\. Raise versionCode/,
    );
  });

  test("a file that is no APK: 415 beside the APK field", async () => {
    const response = await upload("bookapp", new TextEncoder().encode("not a zip"), "x.apk");
    expect(response.status).toBe(415);
    expect(await response.text()).toMatch(/class="field-error" id="error-apk-bookapp">[^<]+</);
    expect((await getActiveApks(t.deps.db)).bookapp).toBeNull();
  });

  test("another signer: a confirmation page with Activate, then active; roll back to the previous", async () => {
    const first = (await getActiveApks(t.deps.db)).launcher!;
    // Make room for a second versionCode 10 (the fixtures all are 10): the first becomes 9.
    await updateApk(t.deps.db, first.id, { versionCode: 9 }, t.clock.now());
    const second = idOf(await upload("launcher", fixtureBytes(ecdsa.file), ecdsa.file));
    const detail = await (await consoleRequest(t, "GET", `/console/apks/${second}`, { cookie })).text();
    expect(detail).toContain(`href="/console/apks/${second}/activate"`);
    const refused = await consoleRequest(t, "POST", `/console/apks/${second}/activate`, { cookie, form: {} });
    expect(refused.status).toBe(303);
    expect(refused.headers.get("location")).toBe(`/console/apks/${second}/activate`);
    expect((await getActiveApks(t.deps.db)).launcher?.id).toBe(first.id);
    const confirm = await (
      await consoleRequest(t, "GET", `/console/apks/${second}/activate`, { cookie })
    ).text();
    expect(confirm).toMatch(/<button type="submit"[^>]*>Activate<\/button>/);
    expect(confirm).toContain('name="allowSignerChange" value="true"');
    const confirmed = await consoleRequest(t, "POST", `/console/apks/${second}/activate`, {
      cookie,
      form: { allowSignerChange: "true" },
    });
    expect(confirmed.status).toBe(303);
    expect((await getActiveApks(t.deps.db)).launcher?.id).toBe(second);
    // Roll back: the previous one (versionCode 9) has the other signer, so it asks first too.
    const rollback = await consoleRequest(t, "POST", "/console/apks/rollback?kind=launcher", {
      cookie,
      form: {},
    });
    expect(rollback.status).toBe(303);
    expect(rollback.headers.get("location")).toBe(`/console/apks/${first.id}/activate`);
    await consoleRequest(t, "POST", `/console/apks/${first.id}/activate`, {
      cookie,
      form: { allowSignerChange: "true" },
    });
    expect((await getActiveApks(t.deps.db)).launcher?.id).toBe(first.id);
    // Nothing earlier than versionCode 9: a 409 page that says what to do.
    const none = await consoleRequest(t, "POST", "/console/apks/rollback?kind=launcher", {
      cookie,
      form: {},
    });
    expect(none.status).toBe(409);
    expect(textOf(await none.text())).toContain("no earlier launcher APK");
  });

  test("cross-site POST: 403, nothing activated or uploaded; unknown ids and kinds: 404", async () => {
    const evil = { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" };
    const before = await getActiveApks(t.deps.db);
    const other = before.launcher!.id;
    expect((await upload("bookapp", fixtureBytes(rsa.file), rsa.file, evil)).status).toBe(403);
    expect(
      (await consoleRequest(t, "POST", "/console/apks/rollback?kind=launcher", { cookie, headers: evil }))
        .status,
    ).toBe(403);
    expect((await getActiveApks(t.deps.db)).launcher?.id).toBe(other);
    expect((await getActiveApks(t.deps.db)).bookapp).toBeNull();
    expect((await consoleRequest(t, "GET", "/console/apks/999999", { cookie })).status).toBe(404);
    expect(
      (await consoleRequest(t, "POST", "/console/apks/999999/activate", { cookie, form: {} })).status,
    ).toBe(404);
    expect(
      (await consoleRequest(t, "POST", "/console/apks/rollback?kind=tv", { cookie, form: {} })).status,
    ).toBe(404);
  });
});
