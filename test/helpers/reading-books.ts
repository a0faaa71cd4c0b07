// A reader holding a book whose version has an uploaded archive, and device tokens of theirs:
// what the reading-progress tests (the API's and KOReader's sync) start from.
import { createHash } from "node:crypto";
import type { DeviceTokenScope } from "../../src/auth/device-token-format";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { CreatedDeviceToken } from "../../src/routes/device-tokens/device-tokens.schemas";
import { bodyAs } from "./responses";
import { TEST_PASSWORD, type TestApp } from "./test-app";
import { makeZip, multipartFile } from "./zip";

let versionCode = 0;

/**
 * A book with one version whose archive is `bytes` (default: a zip of its own, a few KiB, so each
 * book's file has a partial MD5 of its own), made by the admin.
 */
export async function bookWithArchive(
  t: TestApp,
  title: string,
  bytes: Uint8Array = makeZip({ "book.txt": `${title}\n`.repeat(500), "end.txt": title }),
): Promise<{ bookId: number; versionId: number; bytes: Uint8Array }> {
  const admin = await t.admin();
  const book = await bodyAs(await t.call("POST", "/book", { token: admin.token, json: { title } }), Book);
  const version = await bodyAs(
    await t.call("POST", "/bookversion", {
      token: admin.token,
      json: { bookId: book.id, versionCode: ++versionCode, versionName: "1.0" },
    }),
    BookVersion,
  );
  const uploaded = await t.call("POST", `/bookversion/${version.id}/upload`, {
    token: admin.token,
    body: multipartFile(bytes, { filename: `${title}.epub` }),
  });
  if (uploaded.status !== 200) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  return { bookId: book.id, versionId: version.id, bytes };
}

/** Grants the book to the user, as an admin does by hand. */
export async function grantBook(t: TestApp, bookId: number, userUuid: string): Promise<void> {
  const admin = await t.admin();
  const response = await t.call("POST", "/activation", { token: admin.token, json: { bookId, userUuid } });
  if (response.status !== 201) throw new Error(`activation: ${response.status} ${await response.text()}`);
}

/** A device token of the user's (a session's token makes it), with `scopes`. */
export async function deviceToken(
  t: TestApp,
  session: string,
  scopes: DeviceTokenScope[] = ["sync"],
  name = "KOReader",
): Promise<string> {
  const response = await t.call("POST", "/authentication/device-token", {
    token: session,
    json: { name, password: TEST_PASSWORD, scopes },
  });
  return (await bodyAs(response, CreatedDeviceToken)).token;
}

/** What KOReader sends as `x-auth-key`: the lower-case hex MD5 of the password typed in. */
export const md5Hex = (text: string) => createHash("md5").update(text).digest("hex");

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
