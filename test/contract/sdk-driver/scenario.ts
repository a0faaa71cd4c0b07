// A client's whole journey, written only against the SDK generated from GET /v3/api-docs
// (openapi-typescript types + openapi-fetch). test/contract/sdk.test.ts generates `./schema.ts`
// next to a copy of this file under test-output/, type-checks both with tsc, then runs this.
// The project's own typecheck leaves this folder out (tsconfig.json), as `./schema` exists only
// in that generated copy.
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema";

type Problem = components["schemas"]["Problem"];

export interface Fixtures {
  adminEmail: string;
  password: string;
  cover: Blob;
  archive: Blob;
}

export interface Journey {
  admin: components["schemas"]["Session"];
  reader: components["schemas"]["Session"];
  book: components["schemas"]["Book"];
  withCover: components["schemas"]["Book"];
  version: components["schemas"]["BookVersion"];
  qrCode: components["schemas"]["ActivationQrCode"];
  activation: components["schemas"]["Activation"];
  redeemedAgainStatus: number;
  myBooks: components["schemas"]["MyBook"][];
  bookCount: string;
  range: { status: number; contentRange: string | null; bytes: Uint8Array };
  logout: components["schemas"]["LogoutResult"];
  afterLogout: { status: number; problem: Problem | undefined };
}

/** Fails with the problem the server answered when a call did not succeed. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }, what: string): T {
  if (result.data === undefined || !result.response.ok)
    throw new Error(`${what}: ${result.response.status} ${JSON.stringify(result.error)}`);
  return result.data;
}

/** Multipart bodies go out as FormData; the generated type says which part is the file. */
function formData(body: { file: Blob }): FormData {
  const form = new FormData();
  form.append("file", body.file, "upload");
  return form;
}

/**
 * The media types this client reads: every one the document has but HAL, which a client only
 * gets when it asks for it (openapi-fetch's documented second type parameter picks them).
 */
type Media =
  | "application/json"
  | "application/problem+json"
  | "text/plain"
  | "text/csv"
  | "text/html"
  | "image/png"
  | "image/svg+xml"
  | "application/pdf"
  | "application/zip"
  | "application/octet-stream";

export async function runJourney(baseUrl: string, fixtures: Fixtures): Promise<Journey> {
  const anonymous = createClient<paths, Media>({ baseUrl });
  const as = (token: string): Client<paths, Media> =>
    createClient<paths, Media>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  // The admin (registered and granted by the operator beforehand) logs in; a reader registers
  // and then logs in again.
  const admin = ok(
    await anonymous.POST("/authentication/login", {
      body: { email: fixtures.adminEmail, password: fixtures.password },
    }),
    "log in admin",
  );
  const readerEmail = `reader-${crypto.randomUUID()}@example.com`;
  ok(
    await anonymous.POST("/authentication/register", {
      body: { email: readerEmail, password: fixtures.password },
    }),
    "register reader",
  );
  const reader = ok(
    await anonymous.POST("/authentication/login", {
      body: { email: readerEmail, password: fixtures.password },
    }),
    "log in",
  );
  const adminApi = as(admin.token);
  const readerApi = as(reader.token);

  // The admin publishes a book: record, cover, a version with its archive, a QR code.
  const book = ok(
    await adminApi.POST("/book", {
      body: { title: "The SDK Book", author: "Generated Client", language: "en", isbn: "978-0-306-40615-7" },
    }),
    "create book",
  );
  const withCover = ok(
    await adminApi.POST("/book/{id}/cover", {
      params: { path: { id: book.id } },
      body: { file: fixtures.cover },
      bodySerializer: formData,
    }),
    "upload cover",
  );
  const created = ok(
    await adminApi.POST("/bookversion", { body: { bookId: book.id, versionCode: 1, versionName: "1.0" } }),
    "create version",
  );
  const version = ok(
    await adminApi.POST("/bookversion/{id}/upload", {
      params: { path: { id: created.id } },
      body: { file: fixtures.archive },
      bodySerializer: formData,
    }),
    "upload archive",
  );
  const qrCode = ok(
    await adminApi.POST("/activation-qr-code", {
      body: { bookId: book.id, maxActivations: 1, label: "SDK" },
    }),
    "create QR code",
  );

  // The reader redeems the code (lower case, without dashes: redemption normalises it).
  const typed = qrCode.code.replaceAll("-", "").toLowerCase();
  const activation = ok(
    await readerApi.POST("/activation/by-qr-code", { body: { code: typed } }),
    "redeem QR code",
  );
  const again = await readerApi.POST("/activation/by-qr-code", { body: { code: qrCode.code } });
  const myBooks = ok(await readerApi.GET("/book/my-books"), "my books");
  const bookCount = ok(await readerApi.GET("/book/count", { parseAs: "text" }), "count books");

  const ranged = await readerApi.GET("/book/{id}/newest-book-version", {
    params: { path: { id: book.id }, header: { range: "bytes=4-15" } },
    parseAs: "arrayBuffer",
  });
  const range = {
    status: ranged.response.status,
    contentRange: ranged.response.headers.get("content-range"),
    bytes: new Uint8Array(ok(ranged, "download a range")),
  };

  const logout = ok(await readerApi.POST("/authentication/logout", { body: {} }), "log out");
  const me = await readerApi.GET("/authentication/me");
  return {
    admin,
    reader,
    book,
    withCover,
    version,
    qrCode,
    activation,
    redeemedAgainStatus: again.response.status,
    myBooks,
    bookCount,
    range,
    logout,
    afterLogout: { status: me.response.status, problem: me.error },
  };
}
