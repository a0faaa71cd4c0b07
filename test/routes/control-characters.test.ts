// Strings in bodies, query and path never hold NUL or other C0 controls (tab, LF and
// CR only in multi-line fields) — 400 VALIDATION_FAILED on every database alike, never a 500
// (Postgres refuses NUL in text) and never stored (SQLite would keep it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLogger } from "../../src/lib/logger";
import { Apk } from "../../src/routes/apks/apks.schemas";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { bodyAs, expectProblem, jsonOf } from "../helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";
import { makeZip } from "../helpers/zip";

/** The one `pattern` somewhere in a property's schema (it may sit inside an anyOf with null). */
function patternOf(schema: unknown): RegExp {
  const found: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === "object") {
      for (const [key, value] of Object.entries(node)) {
        if (key === "pattern" && typeof value === "string") found.push(value);
        else walk(value);
      }
    }
  };
  walk(schema);
  expect(found).toHaveLength(1);
  return new RegExp(found[0]!);
}

describe("control characters in input", () => {
  let t: TestApp;
  let admin: { token: string };
  let bookId: number;
  let versionId: number;
  let apkId: number;
  const logLines: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({ logger: createLogger("debug", (line) => logLines.push(line)) });
    admin = await t.admin();
    bookId = (
      await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title: "Clean" } }), Book)
    ).id;
    versionId = (
      await bodyAs(
        await t.call("POST", "/bookversion", {
          token: admin.token,
          json: { bookId, versionCode: 1, versionName: "1.0" },
        }),
        BookVersion,
      )
    ).id;
    apkId = (
      await bodyAs(
        await t.call("POST", "/apk", {
          token: admin.token,
          json: { kind: "bookapp", versionCode: 1, versionName: "1.0" },
        }),
        Apk,
      )
    ).id;
  });
  afterAll(async () => {
    // Whatever the input, nothing above warning level was logged: no 500 on any dialect.
    const errors = logLines.filter((line) => JSON.parse(line).level === "error");
    expect(errors).toEqual([]);
    await t.close();
  });

  const expectRefused = async (response: Response, field: string) => {
    const problem = await expectProblem(response, 400, "VALIDATION_FAILED");
    const paths = problem.errors!.map((error) => error.path.split(".")[0]);
    expect(paths).toContain(field);
  };

  const NUL = "\u0000";
  const SOH = "\u0001";

  test("register and login: NUL or SOH in any field is 400, not 500 nor an account", async () => {
    const email = "nul-user@example.com";
    for (const bad of [NUL, SOH, "\n", "\t"]) {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ email: `a${bad}b@example.com`, password: TEST_PASSWORD }, "email"],
        [{ email, password: `correct horse${bad}battery` }, "password"],
        [{ email, password: TEST_PASSWORD, firstName: `Ja${bad}ne` }, "firstName"],
        [{ email, password: TEST_PASSWORD, lastName: `D${bad}oe` }, "lastName"],
      ];
      for (const [json, field] of cases) {
        await expectRefused(await t.call("POST", "/authentication/register", { json }), field);
      }
      await expectRefused(
        await t.call("POST", "/authentication/login", {
          json: { email: `admin${bad}@example.com`, password: TEST_PASSWORD },
        }),
        "email",
      );
      await expectRefused(
        await t.call("POST", "/authentication/login", {
          json: { email: "admin@example.com", password: `${TEST_PASSWORD}${bad}` },
        }),
        "password",
      );
    }
    // None of the refused registrations made an account.
    const login = await t.call("POST", "/authentication/login", {
      json: { email, password: TEST_PASSWORD },
    });
    expect(login.status).toBe(401);
  });

  test("book: single-line fields refuse every C0 control; the description takes tab, LF and CR", async () => {
    for (const bad of [NUL, SOH, "\u001f", "\n", "\r", "\t"]) {
      for (const field of ["title", "author", "isbn", "language"]) {
        const json = { title: "Fine", [field]: `Bad${bad}Value` };
        await expectRefused(await t.call("POST", "/book", { token: admin.token, json }), field);
        await expectRefused(await t.call("PUT", `/book/${bookId}`, { token: admin.token, json }), field);
      }
    }
    for (const bad of [NUL, SOH, "\u000b", "\u000c", "\u001b"]) {
      await expectRefused(
        await t.call("POST", "/book", {
          token: admin.token,
          json: { title: "Fine", description: `one${bad}two` },
        }),
        "description",
      );
    }
    const description = "First line\nsecond line\r\n\tindented";
    const created = await t.call("POST", "/book", {
      token: admin.token,
      json: { title: "Lines", description },
    });
    expect(created.status).toBe(201);
    expect((await bodyAs(created, Book)).description).toBe(description);
  });

  test("book versions, APKs, QR codes and redemption refuse control characters", async () => {
    const versionBody = { bookId, versionCode: 2, versionName: "2.0" };
    const apkBody = { kind: "launcher", versionCode: 2, versionName: "2.0" };
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ["POST", "/bookversion", { ...versionBody, versionName: `2${NUL}0` }, "versionName"],
      ["POST", "/bookversion", { ...versionBody, releaseNotes: `fixed${NUL}` }, "releaseNotes"],
      ["PUT", `/bookversion/${versionId}`, { ...versionBody, versionName: `2\n0` }, "versionName"],
      ["POST", "/apk", { ...apkBody, versionName: `2${SOH}0` }, "versionName"],
      ["POST", "/apk", { ...apkBody, releaseNotes: `faster${NUL}` }, "releaseNotes"],
      ["PUT", `/apk/${apkId}`, { ...apkBody, versionName: `2${NUL}0` }, "versionName"],
      ["POST", "/activation-qr-code", { bookId, label: `review${NUL}copy` }, "label"],
      ["POST", "/activation-qr-code", { bookId, label: "review\ncopy" }, "label"],
      ["POST", "/activation-qr-code/batch", { bookId, quantity: 1, label: `first${SOH}` }, "label"],
      ["POST", "/activation/by-qr-code", { code: `7KQ4${NUL}M2XD-9RTF-0BHA` }, "code"],
    ];
    for (const [method, path, json, field] of cases) {
      await expectRefused(await t.call(method, path, { token: admin.token, json }), field);
    }
    const notes = "Fixed typos.\r\n\tChapter 4.";
    const version = await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { ...versionBody, releaseNotes: notes },
    });
    expect(version.status).toBe(201);
    expect((await bodyAs(version, BookVersion)).releaseNotes).toBe(notes);
    const apk = await t.call("POST", "/apk", {
      token: admin.token,
      json: { ...apkBody, releaseNotes: notes },
    });
    expect(apk.status).toBe(201);
    expect((await bodyAs(apk, Apk)).releaseNotes).toBe(notes);
  });

  test("query and path parameters with NUL or SOH are 400", async () => {
    for (const bad of ["%00", "%01"]) {
      const cases: Array<[string, string]> = [
        [`/book?sort=title${bad}`, "sort"],
        [`/book?page=1${bad}`, "page"],
        [`/book/${bookId}${bad}`, "id"],
        [`/activation/ofuser/3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91${bad}`, "userUUID"],
        [`/apk/${apkId}/download?sha256=${bad}`, "sha256"],
        [`/activation-qr-code/ofbook/${bad}`, "bookId"],
      ];
      for (const [path, field] of cases) {
        await expectRefused(await t.call("GET", path, { token: admin.token }), field);
      }
    }
  });

  test("an upload whose file name holds a control character is 400 and stores nothing", async () => {
    const zip = makeZip({ "index.html": "<h1>x</h1>" });
    const boundary = "control-boundary";
    const head = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="book${SOH}.zip"\r\nContent-Type: application/zip\r\n\r\n`,
    );
    const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
    const response = await t.call("POST", `/bookversion/${versionId}/upload`, {
      token: admin.token,
      headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
      body: new Blob([head, zip, tail]),
    });
    await expectRefused(response, "file");
    const version = await bodyAs(
      await t.call("GET", `/bookversion/${versionId}`, { token: admin.token }),
      BookVersion,
    );
    expect(version.archive).toBeNull();
  });

  test("HTTP Basic with a NUL in the name or password is 401, not 500", async () => {
    for (const credentials of [`admin${NUL}@example.com:${TEST_PASSWORD}`, `admin@example.com:x${NUL}`]) {
      const response = await t.call("GET", "/book/count", {
        headers: { Authorization: `Basic ${Buffer.from(credentials).toString("base64")}` },
      });
      await expectProblem(response, 401, "AUTHENTICATION_FAILED");
    }
  });

  test("the OpenAPI document states the rule as a pattern, so generated clients know it", async () => {
    const document = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const schemas = document.components.schemas;
    const title = patternOf(schemas.BookInput!.properties.title);
    expect(title.test("A title")).toBe(true);
    expect(title.test("A\ntitle")).toBe(false);
    expect(title.test(`A${NUL}title`)).toBe(false);
    const description = patternOf(schemas.BookInput!.properties.description);
    expect(description.test("one\r\n\ttwo")).toBe(true);
    expect(description.test(`one${NUL}two`)).toBe(false);
    expect(description.test(`one${SOH}two`)).toBe(false);
    for (const name of ["RegisterInput", "LoginInput"]) {
      for (const field of ["email", "password"]) {
        expect(patternOf(schemas[name]!.properties[field]).test(`x${NUL}`)).toBe(false);
      }
    }
  });
});
