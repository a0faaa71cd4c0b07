// The live OpenAPI document as Stoplight Prism enforces it: Prism runs as a validating proxy
// (`prism proxy <document> <server> --errors`) in front of the real server, and a scenario drives
// every operation of the document through it (the multipart uploads excepted: Prism's proxy
// forwards request bodies as text, so their fixtures go to the server directly), each GET that
// answers JSON also with `Accept: application/hal+json`, plus the error cases clients meet.
// Prism checks each request against the document before forwarding it and each answer after;
// every violation it reports (its error answers and `sl-violations` headers) is collected, and the
// document passes when there is none. Requests that are wrong on purpose (an over-long field, a
// path id that is not a number, no credentials, a method the path lacks) must be refused by Prism
// itself, which proves the document declares the rule, and by the server alike.
// Prism 5 matches media types without their `+suffix` (application/hal+json counts as
// application/json) and validates a body against the first declared content that matches, so a
// response declaring both could never pass in one instance: HAL requests go to a second Prism whose
// copy of the document lists application/hal+json first, plain ones to a copy with application/json
// first. For the same reason Prism cannot tell whether application/hal+json is declared at all;
// the test checks that itself, with the headers the document must declare (lib/problems.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import QRCode from "qrcode";
import {
  OPDS_ATOM_ACQUISITION,
  OPDS_ATOM_NAVIGATION,
  OPDS_AUTHENTICATION,
  OPDS_JSON,
  OPENSEARCH_DESCRIPTION,
} from "../../src/opds/catalog";
import { grantAdminWithCli } from "../helpers/admin-cli";
import { expectedApks, fixtureBytes } from "../helpers/android-tools";
import { type PrismProxy, startPrismProxy, type UpstreamAnswer } from "../helpers/prism-proxy";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { TEST_PASSWORD } from "../helpers/test-app";
import { makeZip, multipartFile } from "../helpers/zip";

const PRISM_ERRORS = "https://stoplight.io/prism/errors#";
const HAL = "application/hal+json";

type Credentials = string | { basic: string } | undefined;

interface Call {
  /** The operation, by its operationId in the live document. */
  op: string;
  path?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | string[]>;
  json?: unknown;
  as?: Credentials;
  headers?: Record<string, string>;
  /** What the server must answer. */
  status: number;
}

interface Violation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

interface Sent {
  /** What Prism answered. */
  status: number;
  /** Prism's own error answer (`UNPROCESSABLE_ENTITY`, `VIOLATIONS`, `UNAUTHORIZED`…), if it gave one. */
  prismError?: string;
  violations: Violation[];
  /** The server's answer, when the request got past Prism. */
  upstream?: UpstreamAnswer;
}

/** Headers error answers carry, which the document must declare on each response that carries them. */
const CONTRACT_HEADERS = [
  "WWW-Authenticate",
  "Allow",
  "Retry-After",
  "Content-Range",
  "Location",
  "X-Total-Count",
  "Link",
  "ETag",
  "Last-Modified",
  "Accept-Ranges",
  "Content-Disposition",
];

let server: RealServer;
/** One Prism per preferred media type (see above). */
let prism: { plain: PrismProxy; hal: PrismProxy };
let dir: string;
let doc: Record<string, any>;
/** operationId → how to call it. */
const operations = new Map<string, { method: string; path: string; operation: Record<string, any> }>();
/** Every violation Prism reported, one line each (a line repeats when it happened again). */
const violations: string[] = [];
/** Where the server answered otherwise than the scenario expects, one line each. */
const surprises: string[] = [];
/** The operations the scenario sent through Prism. */
const covered = new Set<string>();
/** Every answer of the server to a documented operation, for the declaration check. */
const answers: Array<{ where: string; op: string; answer: UpstreamAnswer }> = [];
let requestCount = 0;

beforeAll(async () => {
  server = await startRealServer();
  dir = mkdtempSync(join(tmpdir(), "bookdist-prism-"));
  const response = await fetch(`${server.url}/v3/api-docs`);
  expect(response.status).toBe(200);
  doc = (await response.json()) as Record<string, any>;
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>))
    for (const [method, operation] of Object.entries(methods))
      operations.set(operation.operationId, { method: method.toUpperCase(), path, operation });
  const plainFile = join(dir, "openapi.json");
  const halFile = join(dir, "openapi-hal-first.json");
  await Bun.write(plainFile, JSON.stringify(preferring(doc, "application/json"), null, 2));
  await Bun.write(halFile, JSON.stringify(preferring(doc, HAL), null, 2));
  const [plain, hal] = await Promise.all([
    startPrismProxy(plainFile, server.url),
    startPrismProxy(halFile, server.url),
  ]);
  prism = { plain, hal };
  await runScenario();
}, 120_000); // ~10 s on an idle machine: two Prisms start (~3 s), ~200 requests

afterAll(async () => {
  await prism?.plain.stop();
  await prism?.hal.stop();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Sending through Prism, and straight to the server.

/** The document with `mediaType` first in every response's content that declares it. */
function preferring(document: Record<string, any>, mediaType: string): Record<string, any> {
  const copy = structuredClone(document);
  for (const methods of Object.values(copy.paths as Record<string, Record<string, any>>))
    for (const operation of Object.values(methods))
      for (const response of Object.values((operation.responses ?? {}) as Record<string, any>)) {
        const content = response.content as Record<string, unknown> | undefined;
        if (!content?.[mediaType]) continue;
        response.content = { [mediaType]: content[mediaType], ...content };
      }
  return copy;
}

function operationOf(id: string) {
  const found = operations.get(id);
  if (!found) throw new Error(`the document has no operation ${id}`);
  return found;
}

function urlOf(base: string, call: Pick<Call, "op" | "path" | "query">): string {
  const { path } = operationOf(call.op);
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = call.path?.[name];
    if (value === undefined) throw new Error(`${call.op}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(call.query ?? {}))
    for (const item of [value].flat()) search.append(key, String(item));
  const query = search.toString();
  return `${base}${filled}${query ? `?${query}` : ""}`;
}

function requestInit(call: Call, extra: Record<string, string> = {}): RequestInit {
  const headers: Record<string, string> = { ...call.headers, ...extra };
  if (typeof call.as === "string") headers.Authorization = `Bearer ${call.as}`;
  else if (call.as) headers.Authorization = `Basic ${btoa(call.as.basic)}`;
  if (call.json !== undefined) headers["Content-Type"] = "application/json";
  return {
    method: operationOf(call.op).method,
    headers,
    body: call.json === undefined ? undefined : JSON.stringify(call.json),
  };
}

/** One request through Prism; what Prism said of it and what the server answered. */
async function throughPrism(call: Call, accept?: string): Promise<Sent> {
  covered.add(call.op);
  const proxy = accept === HAL ? prism.hal : prism.plain;
  const requestId = `prism-scenario-${++requestCount}`;
  const response = await fetch(
    urlOf(proxy.url, call),
    requestInit(call, { "X-Request-Id": requestId, ...(accept ? { Accept: accept } : {}) }),
  );
  // Prism passes binary bodies on as text; only its JSON answers are read here.
  let body: any;
  const type = response.headers.get("content-type") ?? "";
  try {
    body = /json/.test(type) ? await response.json() : await response.arrayBuffer();
  } catch {
    body = undefined;
  }
  const found: Violation[] = [];
  const header = response.headers.get("sl-violations");
  if (header) {
    try {
      found.push(...(JSON.parse(header) as Violation[]));
    } catch {
      found.push({ message: header });
    }
  }
  let prismError: string | undefined;
  if (typeof body?.type === "string" && body.type.startsWith(PRISM_ERRORS)) {
    prismError = body.type.slice(PRISM_ERRORS.length);
    const listed = (body.validation ?? []) as Violation[];
    for (const v of listed) if (!found.some((f) => JSON.stringify(f) === JSON.stringify(v))) found.push(v);
    if (listed.length === 0) found.push({ code: prismError, message: body.detail ?? body.title });
  }
  const upstream = proxy.upstream(requestId);
  if (upstream) answers.push({ where: describeCall(call, accept), op: call.op, answer: upstream });
  return { status: response.status, prismError, violations: found, upstream };
}

function describeCall(call: Call, accept?: string): string {
  const { method, path } = operationOf(call.op);
  return `${method} ${path} (${call.op})${accept === HAL ? " [hal+json]" : ""}`;
}

function violationLine(v: Violation): string {
  const where = v.location?.length ? `${v.location.join(".")}: ` : "";
  return `${where}${v.message ?? JSON.stringify(v)}${v.severity && v.severity !== "Error" ? ` (${v.severity})` : ""}`;
}

function parse(answer: UpstreamAnswer | undefined): any {
  if (!answer) return undefined;
  const text = new TextDecoder().decode(answer.bytes);
  if (!/json/.test(answer.headers.get("content-type") ?? "")) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A request the document allows: through Prism, which must report nothing; the server must answer
 * `call.status`. GETs that answer JSON go again with `Accept: application/hal+json`. Returns the
 * server's answer (its JSON body parsed).
 */
async function call(call: Call): Promise<{ body: any; answer?: UpstreamAnswer }> {
  const { method, operation } = operationOf(call.op);
  const accepts: Array<string | undefined> = [undefined];
  const ok = operation.responses?.["200"]?.content ?? {};
  if (method === "GET" && call.status === 200 && (ok["application/json"] || ok[HAL])) accepts.push(HAL);
  let first: UpstreamAnswer | undefined;
  for (const accept of accepts) {
    const sent = await throughPrism(call, accept);
    const where = describeCall(call, accept);
    const answered = sent.upstream ? `server ${sent.upstream.status}` : `not forwarded, Prism ${sent.status}`;
    for (const v of sent.violations) violations.push(`${where} → ${answered}: ${violationLine(v)}`);
    if (!sent.upstream) surprises.push(`${where}: Prism refused it (${sent.status} ${sent.prismError})`);
    else if (sent.upstream.status !== call.status)
      surprises.push(
        `${where}: server ${sent.upstream.status}, expected ${call.status}: ${parse(sent.upstream)?.code ?? ""}`,
      );
    first ??= sent.upstream;
  }
  return { body: parse(first), answer: first };
}

/**
 * A request the document forbids: Prism must refuse it itself (`prismStatus`, naming `mentions`
 * when given), and the server, sent the same request directly, must answer `call.status`.
 */
async function refused(call: Call, prismStatus: number, mentions?: string): Promise<void> {
  const sent = await throughPrism(call);
  const where = describeCall(call);
  const named =
    mentions === undefined ||
    sent.violations.some((v) => violationLine(v).toLowerCase().includes(mentions.toLowerCase()));
  const reported = sent.violations.map(violationLine).join("; ") || "nothing";
  const rule = mentions ? ` (${mentions})` : "";
  if (sent.upstream)
    violations.push(
      `${where} → server ${sent.upstream.status}: the document does not forbid what the server refuses${rule}; ` +
        `Prism forwarded it and reported ${reported}`,
    );
  else if (sent.status !== prismStatus || !named)
    violations.push(
      `${where} → Prism ${sent.status}: expected Prism to refuse it with ${prismStatus}${rule}; it reported ${reported}`,
    );
  const direct = await fetch(urlOf(server.url, call), requestInit(call));
  const bytes = new Uint8Array(await direct.arrayBuffer());
  answers.push({
    where: `${where} sent directly`,
    op: call.op,
    answer: { status: direct.status, headers: direct.headers, bytes },
  });
  if (direct.status !== call.status)
    surprises.push(`${where} sent directly: server ${direct.status}, expected ${call.status}`);
}

/** A request straight to the server (the multipart uploads Prism cannot forward). */
async function direct(
  method: string,
  path: string,
  token: string,
  body: FormData,
  expected = 200,
): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}` },
    body,
  });
  const json = await response.json();
  if (response.status !== expected)
    throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

// ---------------------------------------------------------------------------------------------
// The scenario: every operation, the common error cases.

async function runScenario(): Promise<void> {
  const adminEmail = "prism-admin@example.com";
  const readerEmail = "prism-reader@example.com";
  const otherEmail = "prism-other@example.com";
  const password = TEST_PASSWORD;
  const long = (n: number) => "x".repeat(n);

  // Service.
  await call({ op: "getHealth", status: 200 });
  await call({ op: "getApiDocs", status: 200 });
  await call({ op: "getSwaggerUi", status: 200 });

  // Accounts: the admin registers and is granted by the operator; two readers.
  await call({ op: "register", json: { email: adminEmail, password, firstName: "Ada" }, status: 201 });
  await grantAdminWithCli(adminEmail, server.dataEnv);
  const admin = (await call({ op: "login", json: { email: adminEmail, password }, status: 200 })).body;
  const A: string = admin.token;
  await call({ op: "register", json: { email: readerEmail, password, lastName: "Reader" }, status: 201 });
  const reader = (await call({ op: "login", json: { email: readerEmail, password }, status: 200 })).body;
  const R: string = reader.token;
  const other = (await call({ op: "register", json: { email: otherEmail, password }, status: 201 })).body;
  await call({ op: "register", json: { email: readerEmail, password }, status: 409 });
  await call({ op: "login", json: { email: readerEmail, password: "wrong password!" }, status: 401 });
  await refused(
    { op: "register", json: { email: "short@example.com", password: "short" }, status: 400 },
    422,
    "password",
  );
  await call({ op: "getMe", as: R, status: 200 });
  // The store's users as staff find them (API.md §10).
  await call({ op: "listUsers", as: A, query: { q: "prism-", sort: "email,desc" }, status: 200 });
  await call({ op: "listUsers", as: A, query: { q: "Ada", page: 0, size: 1 }, status: 200 });
  await refused({ op: "listUsers", as: A, query: { q: "p" }, status: 400 }, 422, "q");
  await refused({ op: "listUsers", as: A, status: 400 }, 422, "q");
  await call({ op: "listUsers", as: R, query: { q: "prism-" }, status: 403 });
  await call({ op: "getUser", as: A, path: { userUUID: reader.user.uuid }, status: 200 });
  await call({
    op: "getUser",
    as: A,
    path: { userUUID: "00000000-0000-4000-8000-000000000000" },
    status: 404,
  });
  await call({ op: "getUser", as: R, path: { userUUID: reader.user.uuid }, status: 403 });
  await refused({ op: "getUser", as: A, path: { userUUID: "not-a-uuid" }, status: 400 }, 422, "userUUID");
  await call({ op: "getMe", as: { basic: `${readerEmail}:${password}` }, status: 200 });
  await call({ op: "getMe", as: "not-a-token", status: 401 });
  await refused({ op: "getMe", status: 401 }, 401);

  // Device tokens (app passwords): made with a session and the password again, listed, revoked.
  const deviceToken = (
    await call({
      op: "createDeviceToken",
      as: R,
      json: { name: "KOReader", password, scopes: ["opds", "sync"], expiresAt: "2030-01-01T00:00:00.000Z" },
      status: 201,
    })
  ).body;
  await call({
    op: "createDeviceToken",
    as: R,
    json: { name: "KOReader", password: "wrong password!" },
    status: 401,
  });
  await call({
    op: "createDeviceToken",
    as: { basic: `${readerEmail}:${password}` },
    json: { name: "x", password },
    status: 401,
  });
  await call({ op: "listDeviceTokens", as: R, status: 200 });
  await call({ op: "getMe", as: { basic: `${readerEmail}:${deviceToken.token}` }, status: 401 });
  await call({ op: "revokeDeviceToken", as: A, path: { id: deviceToken.id }, status: 200 });
  await call({ op: "revokeDeviceToken", as: R, path: { id: deviceToken.id }, status: 404 });

  // Books.
  const bookInput = { title: "The Prism Book", author: "Proxy", language: "en", isbn: "978-0-306-40615-7" };
  const book = (await call({ op: "createBook", as: A, json: bookInput, status: 201 })).body;
  const doomed = (await call({ op: "createBook", as: A, json: { title: "To delete" }, status: 201 })).body;
  await call({ op: "createBook", as: R, json: { title: "Not mine to make" }, status: 403 });
  await refused(
    { op: "createBook", as: A, json: { title: "Long tag", language: long(36) }, status: 400 },
    422,
    "language",
  );
  await refused({ op: "createBook", as: A, json: { author: "No title" }, status: 400 }, 422, "title");
  await call({
    op: "updateBook",
    as: A,
    path: { id: book.id },
    json: { ...bookInput, description: "Two\nlines" },
    status: 200,
  });
  await call({ op: "listBooks", as: R, status: 200 });
  await call({
    op: "listBooks",
    as: R,
    query: { page: 0, size: 1, sort: ["title,desc", "id"] },
    status: 200,
  });
  await refused({ op: "listBooks", as: R, query: { size: 0 }, status: 400 }, 422, "size");
  await refused({ op: "listBooks", as: R, query: { sort: "nosuchfield" }, status: 400 }, 422, "sort");
  await call({ op: "countBooks", as: R, status: 200 });
  await call({ op: "getBook", as: R, path: { id: book.id }, status: 200 });
  await call({ op: "getBook", as: R, path: { id: 999999 }, status: 404 });
  await refused({ op: "getBook", as: R, path: { id: "abc" }, status: 400 }, 422, "id");
  await refused({ op: "getBook", path: { id: book.id }, status: 401 }, 401);

  // The cover: uploaded directly (multipart), then read through Prism: ETag, 304, ranges, 416.
  await call({ op: "getBookCover", path: { id: book.id }, status: 404 });
  const png = new Uint8Array(await QRCode.toBuffer("cover", { width: 120 }));
  await direct(
    "POST",
    `/book/${book.id}/cover`,
    A,
    multipartFile(png, { filename: "cover.png", contentType: "image/png" }),
  );
  const cover = await call({ op: "getBookCover", path: { id: book.id }, status: 200 });
  const coverTag = cover.answer?.headers.get("etag") ?? '"none"';
  await call({
    op: "getBookCover",
    path: { id: book.id },
    headers: { "If-None-Match": coverTag },
    status: 304,
  });
  await call({ op: "getBookCover", path: { id: book.id }, headers: { Range: "bytes=0-9" }, status: 206 });
  await call({ op: "getBookCover", path: { id: book.id }, headers: { Range: "bytes=999999-" }, status: 416 });

  // Versions: one with an archive (uploaded directly), one to delete.
  const version = (
    await call({
      op: "createBookVersion",
      as: A,
      json: { bookId: book.id, versionCode: 1, versionName: "1.0" },
      status: 201,
    })
  ).body;
  await call({
    op: "createBookVersion",
    as: A,
    json: { bookId: book.id, versionCode: 1, versionName: "again" },
    status: 409,
  });
  await refused(
    {
      op: "createBookVersion",
      as: A,
      json: { bookId: book.id, versionCode: 7, versionName: "7", releaseNotes: long(10001) },
      status: 400,
    },
    422,
    "releaseNotes",
  );
  await call({
    op: "createBookVersion",
    as: A,
    json: { bookId: 999999, versionCode: 1, versionName: "1" },
    status: 400,
  });
  const archive = makeZip({ "book.html": "<h1>The Prism Book</h1>".repeat(20) });
  await direct(
    "POST",
    `/bookversion/${version.id}/upload`,
    A,
    multipartFile(archive, { filename: "book.zip" }),
  );
  const spare = (
    await call({
      op: "createBookVersion",
      as: A,
      json: { bookId: book.id, versionCode: 2, versionName: "2.0" },
      status: 201,
    })
  ).body;
  await call({
    op: "updateBookVersion",
    as: A,
    path: { id: spare.id },
    json: { bookId: book.id, versionCode: 2, versionName: "2.0.1", releaseNotes: "Fixes" },
    status: 200,
  });
  await call({
    op: "updateBookVersion",
    as: A,
    path: { id: spare.id },
    json: { bookId: book.id, versionCode: 1, versionName: "dup" },
    status: 409,
  });
  await call({ op: "listBookVersions", as: A, status: 200 });
  await call({ op: "listBookVersions", as: R, status: 403 });
  await call({ op: "countBookVersions", as: A, status: 200 });
  await call({ op: "getBookVersion", as: R, path: { id: version.id }, status: 200 });
  await call({ op: "listBookVersionsOfBook", as: R, path: { id: book.id }, status: 200 });
  await call({ op: "deleteBookVersion", as: A, path: { id: spare.id }, status: 200 });
  await call({ op: "getBookVersion", as: R, path: { id: spare.id }, status: 404 });
  // Downloads: the admin may, the reader only once entitled.
  const zip = await call({ op: "downloadBookVersion", as: A, path: { id: version.id }, status: 200 });
  const zipTag = zip.answer?.headers.get("etag") ?? '"none"';
  await call({
    op: "downloadBookVersion",
    as: A,
    path: { id: version.id },
    headers: { "If-None-Match": zipTag },
    status: 304,
  });
  await call({
    op: "downloadBookVersion",
    as: A,
    path: { id: version.id },
    headers: { Range: "bytes=4-15" },
    status: 206,
  });
  await call({
    op: "downloadBookVersion",
    as: A,
    path: { id: version.id },
    headers: { Range: "bytes=999999-" },
    status: 416,
  });
  await call({ op: "downloadBookVersion", as: R, path: { id: version.id }, status: 403 });
  await call({ op: "getNewestBookVersion", as: R, path: { id: book.id }, status: 403 });
  await call({ op: "getNewestBookVersion", as: A, path: { id: doomed.id }, status: 404 });

  // QR codes.
  const qr = (
    await call({
      op: "createActivationQrCode",
      as: A,
      json: { bookId: book.id, maxActivations: 1, label: "Prism" },
      status: 201,
    })
  ).body;
  await refused(
    { op: "createActivationQrCode", as: A, json: { bookId: book.id, label: long(201) }, status: 400 },
    422,
    "label",
  );
  await refused(
    { op: "createActivationQrCode", as: A, json: { bookId: book.id, maxActivations: 0 }, status: 400 },
    422,
    "maxActivations",
  );
  await call({ op: "createActivationQrCode", as: R, json: { bookId: book.id }, status: 403 });
  await call({ op: "listActivationQrCodes", as: A, status: 200 });
  await call({ op: "countActivationQrCodes", as: A, status: 200 });
  // A code as a reader reads it out (API.md §10): found, or an empty list.
  const typed = qr.code.toLowerCase().replaceAll("-", " ");
  await call({ op: "listActivationQrCodes", as: A, query: { code: typed }, status: 200 });
  await call({ op: "listActivationQrCodes", as: A, query: { code: "0000-0000-0000-0000" }, status: 200 });
  await call({ op: "countActivationQrCodes", as: A, query: { code: typed }, status: 200 });
  await refused({ op: "listActivationQrCodes", as: A, query: { code: long(65) }, status: 400 }, 422, "code");
  await call({ op: "getActivationQrCode", as: A, path: { id: qr.id }, status: 200 });
  await call({ op: "getActivationQrCode", as: A, path: { id: 999999 }, status: 404 });
  const image = await call({
    op: "getActivationQrCodeImage",
    as: A,
    path: { id: qr.id },
    query: { size: 64 },
    status: 200,
  });
  const imageTag = image.answer?.headers.get("etag") ?? '"none"';
  await call({
    op: "getActivationQrCodeImage",
    as: A,
    path: { id: qr.id },
    query: { size: 64 },
    headers: { "If-None-Match": imageTag },
    status: 304,
  });
  await refused(
    { op: "getActivationQrCodeImage", as: A, path: { id: qr.id }, query: { size: 10 }, status: 400 },
    422,
    "size",
  );
  const svg = await call({ op: "getActivationQrCodeSvg", as: A, path: { id: qr.id }, status: 200 });
  const svgTag = svg.answer?.headers.get("etag") ?? '"none"';
  await call({
    op: "getActivationQrCodeSvg",
    as: A,
    path: { id: qr.id },
    headers: { "If-None-Match": svgTag },
    status: 304,
  });
  await call({ op: "listActivationQrCodesOfBook", as: A, path: { bookId: book.id }, status: 200 });
  await call({ op: "countActivationQrCodesOfBook", as: A, path: { bookId: book.id }, status: 200 });
  await call({ op: "getUnusedActivationQrCodesOfBook", as: A, path: { bookId: book.id }, status: 200 });
  // A disabled code cannot be redeemed.
  await call({
    op: "setActivationQrCodeEnabled",
    as: A,
    path: { id: qr.id },
    json: { enabled: false },
    status: 200,
  });
  await call({ op: "redeemActivationQrCode", as: R, json: { code: qr.code }, status: 409 });
  await call({
    op: "setActivationQrCodeEnabled",
    as: A,
    path: { id: qr.id },
    json: { enabled: true },
    status: 200,
  });
  // A print run.
  const batch = (
    await call({
      op: "createActivationQrCodeBatch",
      as: A,
      json: { bookId: book.id, quantity: 3, label: "First print", expiresAt: "2099-12-31T23:59:59.000Z" },
      status: 201,
    })
  ).body;
  const batchId: number = batch?.[0]?.batchId ?? 999999;
  await refused(
    { op: "createActivationQrCodeBatch", as: A, json: { bookId: book.id, quantity: 0 }, status: 400 },
    422,
    "quantity",
  );
  await call({ op: "listQrCodeBatchesOfBook", as: A, path: { bookId: book.id }, status: 200 });
  await call({ op: "getQrCodeBatch", as: A, path: { id: batchId }, status: 200 });
  await call({
    op: "setQrCodeBatchEnabled",
    as: A,
    path: { id: batchId },
    json: { enabled: false },
    status: 200,
  });
  await call({ op: "getQrCodeBatchCsv", as: A, path: { id: batchId }, status: 200 });
  await call({
    op: "getQrCodeBatchSheet",
    as: A,
    path: { id: batchId },
    query: { paper: "Letter", columns: 3 },
    status: 200,
  });
  await refused(
    { op: "getQrCodeBatchSheet", as: A, path: { id: batchId }, query: { paper: "A3" }, status: 400 },
    422,
    "paper",
  );

  // Activations: the reader redeems the code, and is then entitled to the book's files.
  const activation = (
    await call({
      op: "redeemActivationQrCode",
      as: R,
      json: { code: qr.code.replaceAll("-", "").toLowerCase() },
      status: 201,
    })
  ).body;
  await call({ op: "redeemActivationQrCode", as: R, json: { code: qr.code }, status: 200 });
  await call({ op: "redeemActivationQrCode", as: R, json: { code: "0000-0000-0000-0000" }, status: 404 });
  await call({ op: "redeemActivationQrCode", as: other.token, json: { code: qr.code }, status: 409 });
  // Reading progress: none yet, written, read back; an older one refused; a stranger refused.
  await call({ op: "getReadingProgress", as: R, path: { id: book.id }, status: 204 });
  const position = {
    percentage: 0.42,
    locator: { href: "ch3.xhtml", type: "application/xhtml+xml", locations: { progression: 0.5 } },
    device: "Thorium",
    modified: "2026-11-21T09:00:00.000Z",
  };
  await call({ op: "putReadingProgress", as: R, path: { id: book.id }, json: position, status: 200 });
  await call({ op: "getReadingProgress", as: R, path: { id: book.id }, status: 200 });
  await call({
    op: "putReadingProgress",
    as: R,
    path: { id: book.id },
    json: { ...position, modified: "2026-11-21T08:00:00.000Z" },
    status: 409,
  });
  await refused(
    {
      op: "putReadingProgress",
      as: R,
      path: { id: book.id },
      json: { ...position, percentage: 2 },
      status: 400,
    },
    422,
    "percentage",
  );
  await call({
    op: "putReadingProgress",
    as: other.token,
    path: { id: book.id },
    json: position,
    status: 403,
  });
  await opdsCatalogs(R, readerEmail, password, book.id);
  await call({ op: "listMyBooks", as: R, status: 200 });
  await call({ op: "listBooksWithVersionAndActivation", as: R, status: 200 });
  await call({ op: "getBookWithVersionAndActivation", as: R, path: { id: book.id }, status: 200 });
  await call({ op: "getNewestBookVersion", as: R, path: { id: book.id }, status: 200 });
  await call({
    op: "getNewestBookVersion",
    as: R,
    path: { id: book.id },
    headers: { Range: "bytes=999999-" },
    status: 416,
  });
  await call({ op: "downloadBookVersion", as: R, path: { id: version.id }, status: 200 });
  await call({ op: "getActivation", as: R, path: { id: activation.id }, status: 200 });
  await call({ op: "getActivation", as: other.token, path: { id: activation.id }, status: 403 });
  await call({ op: "listActivationsOfUser", as: R, path: { userUUID: reader.user.uuid }, status: 200 });
  await call({ op: "countActivationsOfUser", as: R, path: { userUUID: reader.user.uuid }, status: 200 });
  await call({
    op: "listActivationsOfUser",
    as: other.token,
    path: { userUUID: reader.user.uuid },
    status: 403,
  });
  await refused(
    { op: "listActivationsOfUser", as: A, path: { userUUID: "not-a-uuid" }, status: 400 },
    422,
    "userUUID",
  );
  await call({ op: "listActivations", as: A, status: 200 });
  await call({ op: "countActivations", as: A, status: 200 });
  // The filters of API.md §10, on the list and its count.
  const filters = {
    bookId: book.id,
    userUuid: reader.user.uuid,
    source: "code",
    from: "2020-01-01T00:00:00Z",
  };
  await call({
    op: "listActivations",
    as: A,
    query: { ...filters, to: "2999-12-31T23:59:59Z" },
    status: 200,
  });
  await call({ op: "listActivations", as: A, query: { source: "manual", page: 0, size: 5 }, status: 200 });
  await call({ op: "countActivations", as: A, query: filters, status: 200 });
  await refused({ op: "listActivations", as: A, query: { source: "shop" }, status: 400 }, 422, "source");
  await refused({ op: "countActivations", as: A, query: { from: "yesterday" }, status: 400 }, 422, "from");
  await call({ op: "listActivations", as: R, query: { source: "code" }, status: 403 });
  await call({ op: "listActivationsOfBook", as: A, path: { id: book.id }, status: 200 });
  await call({ op: "countActivationsOfBook", as: A, path: { id: book.id }, status: 200 });
  await call({ op: "countActivationsOfBook", as: R, path: { id: book.id }, status: 403 });
  const granted = (
    await call({
      op: "createActivation",
      as: A,
      json: { bookId: book.id, userUuid: other.user.uuid },
      status: 201,
    })
  ).body;
  await call({
    op: "createActivation",
    as: A,
    json: { bookId: book.id, userUuid: other.user.uuid },
    status: 409,
  });
  await refused(
    { op: "createActivation", as: A, json: { bookId: book.id, userUuid: "nope" }, status: 400 },
    422,
    "userUuid",
  );
  await call({
    op: "updateActivation",
    as: A,
    path: { id: granted.id },
    json: { bookId: doomed.id, userUuid: other.user.uuid },
    status: 200,
  });
  await call({ op: "deleteActivation", as: A, path: { id: granted.id }, status: 200 });
  await call({ op: "deleteActivation", as: A, path: { id: granted.id }, status: 404 });
  await offlineEntitlements(R, other.token, readerEmail, password);
  // A book that readers hold cannot be deleted; one they do not can.
  await call({ op: "deleteBook", as: A, path: { id: book.id }, status: 409 });
  await call({ op: "deleteBook", as: A, path: { id: doomed.id }, status: 200 });

  // APKs: a record, its file uploaded directly, activated, then downloaded as a device does.
  const fixture = expectedApks.find((apk) => apk.file === "tinyapp-v1v2v3.apk")!;
  const apkInput = { kind: "bookapp", versionCode: fixture.versionCode, versionName: fixture.versionName };
  const apk = (await call({ op: "createApk", as: A, json: apkInput, status: 201 })).body;
  await call({ op: "createApk", as: A, json: apkInput, status: 409 });
  await refused({ op: "createApk", as: A, json: { ...apkInput, kind: "watch" }, status: 400 }, 422, "kind");
  await refused(
    {
      op: "updateApk",
      as: A,
      path: { id: apk.id },
      json: { ...apkInput, releaseNotes: long(10001) },
      status: 400,
    },
    422,
    "releaseNotes",
  );
  await call({
    op: "updateApk",
    as: A,
    path: { id: apk.id },
    json: { ...apkInput, active: true },
    status: 409,
  });
  await direct(
    "POST",
    `/apk/${apk.id}/upload`,
    A,
    multipartFile(fixtureBytes(fixture.file), { filename: fixture.file }),
  );
  await call({
    op: "updateApk",
    as: A,
    path: { id: apk.id },
    json: { ...apkInput, active: true, releaseNotes: "First" },
    status: 200,
  });
  await call({ op: "listApks", as: A, status: 200 });
  await call({ op: "countApks", as: A, status: 200 });
  await call({ op: "getApk", as: A, path: { id: apk.id }, status: 200 });
  await call({ op: "getApk", as: R, path: { id: apk.id }, status: 403 });
  await call({ op: "getActiveApks", status: 200 });
  const active = await call({ op: "downloadActiveBookapp", status: 200 });
  const apkTag = active.answer?.headers.get("etag") ?? '"none"';
  await call({ op: "downloadActiveBookapp", headers: { "If-None-Match": apkTag }, status: 304 });
  await call({ op: "downloadActiveBookapp", headers: { Range: "bytes=-16" }, status: 206 });
  await call({ op: "downloadActiveBookapp", headers: { Range: "bytes=999999-" }, status: 416 });
  await call({ op: "downloadActiveLauncher", status: 404 });
  await call({ op: "downloadApk", path: { id: apk.id }, query: { sha256: fixture.sha256 }, status: 200 });
  await call({ op: "downloadApk", path: { id: apk.id }, query: { sha256: "0".repeat(64) }, status: 404 });
  await refused(
    { op: "downloadApk", path: { id: apk.id }, query: { sha256: "not-hex" }, status: 400 },
    422,
    "sha256",
  );
  const launcher = (
    await call({
      op: "createApk",
      as: A,
      json: { kind: "launcher", versionCode: 1, versionName: "1.0" },
      status: 201,
    })
  ).body;
  await call({ op: "downloadApk", path: { id: launcher.id }, status: 401 });
  await call({ op: "downloadApk", as: A, path: { id: launcher.id }, status: 404 });
  // Activating keeps every field (API.md §10); a record without a file cannot be active.
  await call({ op: "activateApk", as: A, path: { id: launcher.id }, status: 409 });
  await call({ op: "deleteApk", as: A, path: { id: launcher.id }, status: 200 });
  await call({ op: "activateApk", as: A, path: { id: launcher.id }, status: 404 });
  await call({ op: "activateApk", as: R, path: { id: apk.id }, status: 403 });
  await refused({ op: "activateApk", as: A, path: { id: "x" }, status: 400 }, 422, "id");
  await call({ op: "activateApk", as: A, path: { id: apk.id }, status: 200 });
  // A launcher record made from its file alone (the upload goes to the server directly), activated.
  const fromFile = await direct(
    "POST",
    "/apk/upload?kind=launcher",
    A,
    multipartFile(fixtureBytes(fixture.file), { filename: fixture.file }),
    201,
  );
  await call({
    op: "activateApk",
    as: A,
    path: { id: fromFile.id },
    query: { allowSignerChange: "true" },
    status: 200,
  });

  // Shop orders (README, Shop orders): the mappings work on any store; this server runs
  // SHOP_ORDERS=off, so the sync, an order, the webhook and a claim are 404.
  const mapping = (
    await call({ op: "createShopProduct", as: A, json: { bookId: book.id, productId: 1520 }, status: 201 })
  ).body;
  await call({ op: "createShopProduct", as: A, json: { bookId: book.id, productId: 1520 }, status: 409 });
  await call({ op: "createShopProduct", as: R, json: { bookId: book.id, productId: 1521 }, status: 403 });
  await call({ op: "listShopProducts", as: A, query: { sort: "productId,desc" }, status: 200 });
  await call({ op: "countShopProducts", as: A, status: 200 });
  await call({ op: "getShopProduct", as: A, path: { id: mapping.id }, status: 200 });
  await call({ op: "listShopProductsOfBook", as: A, path: { id: book.id }, status: 200 });
  await call({ op: "deleteShopProduct", as: A, path: { id: mapping.id }, status: 200 });
  await call({ op: "getShopStatus", as: A, status: 200 });
  await call({ op: "syncShop", as: A, status: 404 });
  await call({ op: "getShopOrder", as: A, path: { orderId: 727 }, status: 404 });
  await call({ op: "receiveShopWebhook", json: { id: 727 }, status: 404 });
  await call({
    op: "claimShopOrder",
    as: R,
    json: { orderId: 727, orderKey: "wc_order_Xq3pL8rT2mVbN" },
    status: 404,
  });

  await auditLog(A, R);

  // Methods a path does not have: Prism's router refuses them, the server answers 405 with Allow.
  await methodNotAllowed("PATCH", "/book");
  await methodNotAllowed("DELETE", "/health");

  // Logging out ends the session: the same token is refused afterwards.
  await call({ op: "logout", as: R, json: {}, status: 200 });
  await call({ op: "getMe", as: R, status: 401 });
  await call({ op: "logout", as: A, json: { allSessions: true }, status: 200 });
}

/**
 * The OPDS catalogs (README, Reading apps), as a reading app meets them: no credentials → the
 * Basic challenge with the OPDS Authentication Document; a device token of scope `opds` → the
 * feeds, each asked for with the media type the document declares; then the signed cover and
 * download links a feed carries, without credentials (ETag, Range, HEAD), and a forged signature.
 * The reader holds `bookId`, whose version has an archive and whose cover is uploaded.
 */
async function opdsCatalogs(session: string, email: string, password: string, bookId: number): Promise<void> {
  const opds = (
    await call({
      op: "createDeviceToken",
      as: session,
      json: { name: "Thorium", password, scopes: ["opds"] },
      status: 201,
    })
  ).body;
  const syncOnly = (
    await call({
      op: "createDeviceToken",
      as: session,
      json: { name: "Sync only", password, scopes: ["sync"] },
      status: 201,
    })
  ).body;
  const app = { basic: `${email}:${opds.token}` };
  const navigation = { Accept: OPDS_ATOM_NAVIGATION };
  const acquisition = { Accept: OPDS_ATOM_ACQUISITION };
  const opds2 = { Accept: OPDS_JSON };

  // Signing in: Prism refuses a request without credentials (the document names the schemes), the
  // server answers the challenge; wrong credentials reach the server and get it through Prism.
  await refused({ op: "getOpdsRoot", headers: navigation, status: 401 }, 401);
  await expectChallenge("/opds");
  await call({
    op: "getOpdsShelf",
    as: { basic: `${email}:wrong password!` },
    headers: { Accept: OPDS_AUTHENTICATION },
    status: 401,
  });
  await call({
    op: "getOpds2Shelf",
    as: { basic: `${email}:${syncOnly.token}` },
    headers: opds2,
    status: 401,
  });
  await call({ op: "getOpdsAuthentication", headers: { Accept: OPDS_AUTHENTICATION }, status: 200 });

  // OPDS 1.2 (Atom) and OPDS 2.0 (JSON), a session or a device token alike.
  await call({ op: "getOpdsRoot", as: app, headers: navigation, status: 200 });
  await call({ op: "getOpdsRoot", as: app, headers: opds2, status: 200 });
  await call({ op: "getOpdsRoot", as: session, headers: navigation, status: 200 });
  await call({ op: "getOpdsShelf", as: app, headers: acquisition, status: 200 });
  await call({ op: "getOpdsShelf", as: app, query: { page: 1 }, headers: acquisition, status: 200 });
  await refused(
    { op: "getOpdsShelf", as: app, query: { page: -1 }, headers: acquisition, status: 400 },
    422,
    "page",
  );
  await call({ op: "getOpdsRecent", as: app, headers: acquisition, status: 200 });
  await call({ op: "searchOpds", as: app, query: { q: "prism" }, headers: acquisition, status: 200 });
  await refused({ op: "searchOpds", as: app, headers: acquisition, status: 400 }, 422, "q");
  await call({
    op: "getOpdsSearchDescription",
    as: app,
    headers: { Accept: OPENSEARCH_DESCRIPTION },
    status: 200,
  });
  await call({ op: "getOpds2Root", as: app, headers: opds2, status: 200 });
  const shelf = await call({ op: "getOpds2Shelf", as: app, headers: opds2, status: 200 });
  await call({ op: "getOpds2Recent", as: app, headers: opds2, status: 200 });
  await call({ op: "searchOpds2", as: app, query: { q: "Proxy" }, headers: opds2, status: 200 });
  await refused(
    { op: "searchOpds2", as: app, query: { q: "x".repeat(1000) }, headers: opds2, status: 400 },
    422,
    "q",
  );

  // The signed links of the reader's book, from the feed: they need no credentials.
  const text = JSON.stringify(shelf.body ?? {});
  const cover = signedLink(text, "cover");
  const download = signedLink(text, "download");
  if (!cover || !download) {
    surprises.push(
      `GET /opds/v2/shelf: no signed cover and download link of book ${bookId} in ${text.slice(0, 300)}`,
    );
    return;
  }
  const png = { Accept: "image/png" };
  const zip = { Accept: "application/zip" };
  const image = await call({ op: "getOpdsCover", ...cover, headers: png, status: 200 });
  await call({
    op: "getOpdsCover",
    ...cover,
    headers: { ...png, "If-None-Match": image.answer?.headers.get("etag") ?? '"none"' },
    status: 304,
  });
  await call({ op: "getOpdsCover", ...cover, headers: { ...png, Range: "bytes=0-9" }, status: 206 });
  const file = await call({ op: "downloadOpdsFile", ...download, headers: zip, status: 200 });
  await call({
    op: "downloadOpdsFile",
    ...download,
    headers: { ...zip, "If-None-Match": file.answer?.headers.get("etag") ?? '"none"' },
    status: 304,
  });
  await call({ op: "downloadOpdsFile", ...download, headers: { ...zip, Range: "bytes=4-15" }, status: 206 });
  await call({
    op: "downloadOpdsFile",
    ...download,
    headers: { ...zip, Range: "bytes=999999-" },
    status: 416,
  });
  await expectHead(urlOf(server.url, { op: "downloadOpdsFile", ...download }), file.answer);
  await expectHead(urlOf(server.url, { op: "getOpdsCover", ...cover }), image.answer);
  // A forged signature (well-formed, so Prism forwards it) is the server's 403; a malformed one
  // the document's own rule.
  const forged = { ...download.query, sig: "A".repeat(43) };
  await call({ op: "downloadOpdsFile", path: download.path, query: forged, headers: zip, status: 403 });
  await call({
    op: "getOpdsCover",
    path: cover.path,
    query: { ...cover.query, sig: "A".repeat(43) },
    status: 403,
  });
  await refused(
    { op: "downloadOpdsFile", path: download.path, query: { ...download.query, sig: "short" }, status: 400 },
    422,
    "sig",
  );
  await call({ op: "revokeDeviceToken", as: session, path: { id: syncOnly.id }, status: 200 });
}

/** The `{ path, query }` of a feed's signed link to a file of `kind`, or undefined. */
function signedLink(
  feed: string,
  kind: "cover" | "download",
): { path: Record<string, string>; query: Record<string, string> } | undefined {
  const href = new RegExp(`"href":"([^"]*/opds/${kind}/[^"]+)"`).exec(feed)?.[1];
  if (!href) return undefined;
  const url = new URL(href, server.url);
  const [, , , userUUID, id] = url.pathname.split("/");
  if (!userUUID || !id) return undefined;
  return { path: { userUUID, id }, query: Object.fromEntries(url.searchParams) };
}

/** The server's 401 to a reading app: a Basic challenge, the authentication document as its body. */
async function expectChallenge(path: string): Promise<void> {
  const response = await fetch(`${server.url}${path}`, { headers: { Accept: OPDS_ATOM_NAVIGATION } });
  const body = (await response.json().catch(() => ({}))) as { links?: Array<{ rel?: string }> };
  const type = response.headers.get("content-type") ?? "";
  if (
    response.status !== 401 ||
    !type.startsWith(OPDS_AUTHENTICATION) ||
    !/^Basic /.test(response.headers.get("www-authenticate") ?? "") ||
    !(response.headers.get("link") ?? "").includes("/opds/auth") ||
    !Array.isArray(body.links)
  )
    surprises.push(
      `GET ${path} without credentials sent directly: ${response.status} ${type}, WWW-Authenticate ` +
        `${response.headers.get("www-authenticate")}, Link ${response.headers.get("link")}`,
    );
}

/**
 * HEAD of a download, sent directly (the document declares the GET; HEAD is every download's, README
 * Downloads): the GET's status and headers, no body.
 */
async function expectHead(url: string, get: UpstreamAnswer | undefined): Promise<void> {
  const response = await fetch(url, { method: "HEAD" });
  const bytes = (await response.arrayBuffer()).byteLength;
  const same = ["content-type", "content-length", "etag"].every(
    (name) => response.headers.get(name) === get?.headers.get(name),
  );
  if (response.status !== 200 || bytes !== 0 || !same)
    surprises.push(
      `HEAD ${new URL(url).pathname} sent directly: ${response.status}, ${bytes} bytes, ` +
        `Content-Type ${response.headers.get("content-type")} Content-Length ${response.headers.get("content-length")}`,
    );
}

/**
 * Offline entitlements (README, Offline entitlements): the signed token, with a session or a
 * device token of scope `entitlements`; the revocations feed, where `other`'s ended activation is;
 * the public key set, with its ETag.
 */
async function offlineEntitlements(
  session: string,
  other: string,
  email: string,
  password: string,
): Promise<void> {
  const token = (
    await call({
      op: "createDeviceToken",
      as: session,
      json: { name: "Offline app", password, scopes: ["entitlements"] },
      status: 201,
    })
  ).body;
  const app = { basic: `${email}:${token.token}` };
  const signed = (await call({ op: "getEntitlements", as: session, status: 200 })).body;
  if (typeof signed?.token !== "string" || signed.token.split(".").length !== 3)
    surprises.push(`GET /authentication/entitlements: no compact JWS in ${JSON.stringify(signed)}`);
  await call({ op: "getEntitlements", as: app, status: 200 });
  await refused({ op: "getEntitlements", status: 401 }, 401);
  await call({ op: "getEntitlements", as: { basic: `${email}:wrong password!` }, status: 401 });
  const since = "2020-01-01T00:00:00.000Z";
  const ended = (await call({ op: "getEntitlementRevocations", as: other, query: { since }, status: 200 }))
    .body;
  if (!Array.isArray(ended) || ended.length === 0)
    surprises.push(
      `GET /authentication/entitlements/revocations: the ended activation is missing: ${JSON.stringify(ended)}`,
    );
  await call({ op: "getEntitlementRevocations", as: app, query: { since }, status: 200 });
  await refused(
    { op: "getEntitlementRevocations", as: session, query: { since: "yesterday" }, status: 400 },
    422,
    "since",
  );
  await refused({ op: "getEntitlementRevocations", as: session, status: 400 }, 422, "since");
  const jwks = await call({ op: "getEntitlementJwks", status: 200 });
  await call({
    op: "getEntitlementJwks",
    headers: { "If-None-Match": jwks.answer?.headers.get("etag") ?? '"none"' },
    status: 304,
  });
  await call({ op: "revokeDeviceToken", as: session, path: { id: token.id }, status: 200 });
}

/** The audit log (README, Audit log): the admin's changes of the scenario, for admins only. */
async function auditLog(admin: string, reader: string): Promise<void> {
  const listed = (await call({ op: "listAuditEvents", as: admin, status: 200 })).body;
  const events: Array<{ id: number }> = Array.isArray(listed)
    ? listed
    : (listed?._embedded?.auditEvents ?? []);
  const id = events[0]?.id ?? 999999;
  if (events.length === 0) surprises.push("GET /audit-event: no event of the scenario's changes");
  await call({
    op: "listAuditEvents",
    as: admin,
    query: { action: "book.*", from: "2020-01-01T00:00:00Z", sort: "id,asc", size: 5 },
    status: 200,
  });
  await call({ op: "countAuditEvents", as: admin, status: 200 });
  await call({ op: "countAuditEvents", as: admin, query: { targetType: "book" }, status: 200 });
  await call({ op: "getAuditEvent", as: admin, path: { id }, status: 200 });
  await call({ op: "getAuditEvent", as: admin, path: { id: 999999 }, status: 404 });
  await call({ op: "listAuditEvents", as: reader, status: 403 });
  await call({ op: "countAuditEvents", as: reader, status: 403 });
  await call({ op: "getAuditEvent", as: reader, path: { id }, status: 403 });
  await refused({ op: "getAuditEvent", path: { id }, status: 401 }, 401);
  await refused({ op: "listAuditEvents", as: admin, query: { action: "Book" }, status: 400 }, 422, "action");
  await refused(
    { op: "countAuditEvents", as: admin, query: { from: "last week" }, status: 400 },
    422,
    "from",
  );
}

/** A method the path lacks: Prism refuses it itself, the server answers 405 naming what it allows. */
async function methodNotAllowed(method: string, path: string): Promise<void> {
  const through = await fetch(`${prism.plain.url}${path}`, { method });
  const body = (await through.json().catch(() => ({}))) as { type?: string };
  if (through.status !== 405 || !String(body.type).endsWith("NO_METHOD_MATCHED_ERROR"))
    violations.push(
      `${method} ${path} → Prism ${through.status} ${body.type}: expected its 405 NO_METHOD_MATCHED_ERROR`,
    );
  const response = await fetch(`${server.url}${path}`, { method });
  if (response.status !== 405 || !response.headers.get("allow"))
    surprises.push(
      `${method} ${path} sent directly: ${response.status}, Allow ${response.headers.get("allow")}`,
    );
}

// ---------------------------------------------------------------------------------------------

/** A media type's essence and parameters, lower-cased (`a/b;k=v; charset=utf-8`). */
function mediaType(value: string): { essence: string; parameters: Set<string> } {
  const [essence = "", ...parameters] = value
    .toLowerCase()
    .split(";")
    .map((part) => part.trim());
  return { essence, parameters: new Set(parameters.filter(Boolean)) };
}

/**
 * Whether an answer's Content-Type is the declared one: the same essence, and every parameter the
 * declaration names (OPDS's `profile` and `kind`) present; others (`charset`) may be added.
 */
function mediaTypeMatches(answered: string, declared: string): boolean {
  const a = mediaType(answered);
  const d = mediaType(declared);
  return a.essence === d.essence && [...d.parameters].every((p) => a.parameters.has(p));
}

/** Each distinct line once, with how often it happened. */
function counted(lines: string[]): string[] {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return [...counts].map(([line, n]) => (n > 1 ? `${line} (×${n})` : line)).sort();
}

describe("the live OpenAPI document, enforced by Prism's validating proxy", () => {
  test("Prism reports no violation, of a request or of an answer, over the whole scenario", () => {
    const distinct = counted(violations);
    if (distinct.length > 0)
      console.error(
        `${distinct.length} distinct Prism violations:\n${distinct.map((l) => `  ${l}`).join("\n")}`,
      );
    expect(distinct).toEqual([]);
  });

  test("the server answered every step as the scenario expects", () => {
    expect(counted(surprises)).toEqual([]);
  });

  test("each answer's media type, and each header API.md names, is declared for its status", () => {
    const undeclared: string[] = [];
    for (const { where, op, answer } of answers) {
      const { operation } = operationOf(op);
      const response = operation.responses?.[String(answer.status)];
      if (!response) continue; // Prism reports an undeclared status itself
      const type = answer.headers.get("content-type") ?? "";
      const declared = Object.keys(response.content ?? {});
      if (type && answer.bytes.length > 0 && !declared.some((t) => mediaTypeMatches(type, t)))
        undeclared.push(
          `${where} → ${answer.status}: Content-Type ${type} is not declared (${declared.join(", ") || "no content"})`,
        );
      const headers = Object.keys(response.headers ?? {}).map((h) => h.toLowerCase());
      for (const name of CONTRACT_HEADERS)
        if (answer.headers.has(name) && !headers.includes(name.toLowerCase()))
          undeclared.push(`${where} → ${answer.status}: header ${name} is not declared`);
    }
    expect(counted(undeclared)).toEqual([]);
  });

  test("the scenario went through Prism with every operation of the document but the uploads", () => {
    const uploads = [...operations]
      .filter(([, { operation }]) => operation.requestBody?.content?.["multipart/form-data"])
      .map(([id]) => id);
    expect(uploads.sort()).toEqual([
      "createApkFromFile",
      "uploadApk",
      "uploadBookCover",
      "uploadBookVersionArchive",
    ]);
    const missed = [...operations.keys()].filter((id) => !uploads.includes(id) && !covered.has(id));
    expect(missed).toEqual([]);
    expect(operations.size).toBeGreaterThan(60);
  });
});
