// Schema-driven fuzzing over the live OpenAPI document: for every operation, fast-check builds
// valid and broken requests from its parameter and body schemas (wrong types, missing fields, huge
// and unicode strings, negative and enormous ids, bad UUIDs, malformed JSON, wrong content types,
// unknown sort fields) and sends them in-process as an admin, a user or nobody. Invariants: never a
// 5xx; every error is problem+json with a code of lib/problems.ts and its status; every 2xx JSON
// body validates against the documented response schema (JSON Schema 2020-12).
//
// Reproduce a run: FUZZ_SEED=<printed seed> bun test test/contract/fuzz.test.ts
// More cases:      FUZZ_RUNS=<cases per operation> (default 80)
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import fc from "fast-check";
import type { z } from "zod";
import { errorCodes, kebab, statusOf } from "../../src/lib/problems";
import { Activation } from "../../src/routes/activations/activations.schemas";
import { Apk } from "../../src/routes/apks/apks.schemas";
import { Session } from "../../src/routes/authentication/authentication.schemas";
import { BookVersion } from "../../src/routes/book-versions/book-versions.schemas";
import { Book } from "../../src/routes/books/books.schemas";
import { ActivationQrCode } from "../../src/routes/qr-codes/qr-codes.schemas";
import { bodyAs, jsonOf } from "../helpers/responses";
import { createTestApp, TEST_PASSWORD, type TestApp } from "../helpers/test-app";

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() % 2_147_483_647;
const RUNS = Number(process.env.FUZZ_RUNS ?? 80);
console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} reproduces this run), ${RUNS} cases per operation`);

type Schema = Record<string, any>;
interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  path: string;
  level: string;
  parameters: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}

// Throttling stays on: 429 is a documented answer, and the fuzzer must not make it a 5xx.
const t: TestApp = await createTestApp();
const doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
};

const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({
    method: method.toUpperCase(),
    path,
    level: op["x-access-level"],
    parameters: op.parameters ?? [],
    requestBody: op.requestBody,
    responses: op.responses,
  })),
);
// Logging out ends the fuzzer's own sessions; run it last.
operations.sort((a, b) => Number(a.path.endsWith("/logout")) - Number(b.path.endsWith("/logout")));

// One validator over the document's component schemas; response schemas compile against it.
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ $id: "bookdist", components: doc.components });
const validators = new Map<Schema, ValidateFunction>();
function validatorFor(schema: Schema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(rebase(schema));
    validators.set(schema, validate);
  }
  return validate;
}
/** `#/components/...` refers to the document; point it at the schema registered above. */
function rebase(schema: unknown): any {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === "object") {
    return Object.fromEntries(
      Object.entries(schema).map(([key, value]) =>
        key === "$ref" && typeof value === "string" && value.startsWith("#/")
          ? [key, `bookdist${value}`]
          : [key, rebase(value)],
      ),
    );
  }
  return schema;
}
function resolve(schema: Schema): Schema {
  let current = schema;
  while (current.$ref) {
    const name = String(current.$ref).split("/").pop()!;
    current = doc.components.schemas[name]!;
  }
  return current;
}

// ---------------------------------------------------------------------------------------------
// Data the requests can refer to, re-made before each operation (DELETEs consume it).

interface Seeded {
  bookIds: number[];
  versionIds: number[];
  activationIds: number[];
  qrCodeIds: number[];
  apkIds: number[];
  codes: string[];
}
interface Caller {
  token: string;
  uuid: string;
  email: string;
}
const callers: { admin?: Caller; user?: Caller } = {};
/**
 * The account whose e-mail fuzzed logins and registrations use: throttling counts their wrong
 * passwords against it, not against the callers, who must be able to log in again after a logout.
 */
let target: Caller;
let seeded: Seeded;

async function login(email: string): Promise<Caller> {
  const response = await t.call("POST", "/authentication/login", {
    json: { email, password: TEST_PASSWORD },
  });
  if (response.status !== 200) throw new Error(`login ${email}: ${response.status} ${await response.text()}`);
  const session = await bodyAs(response, Session);
  return { token: session.token, uuid: session.user.uuid, email };
}

/** Fresh sessions when a fuzzed logout (or anything else) ended the old ones. */
async function ensureCallers(): Promise<void> {
  for (const role of ["admin", "user"] as const) {
    const caller = callers[role];
    if (caller && (await t.call("GET", "/authentication/me", { token: caller.token })).status === 200)
      continue;
    callers[role] = await login(caller!.email);
  }
}

async function seed(): Promise<Seeded> {
  const admin = callers.admin!.token;
  const made = async <S extends z.ZodType>(path: string, json: unknown, schema: S) => {
    const response = await t.call("POST", path, { token: admin, json });
    if (response.status !== 201) throw new Error(`seed ${path}: ${response.status} ${await response.text()}`);
    return bodyAs(response, schema);
  };
  const book = await made("/book", { title: "Fuzz target", author: "Fc" }, Book);
  const other = await made("/book", { title: "Fuzz other" }, Book);
  const version = await made(
    "/bookversion",
    { bookId: book.id, versionCode: 1, versionName: "1.0" },
    BookVersion,
  );
  const qr = await made("/activation-qr-code", { bookId: book.id, maxActivations: 3 }, ActivationQrCode);
  const activation = await made("/activation", { bookId: book.id, userUuid: callers.user!.uuid }, Activation);
  const apkCode = 1 + Math.floor(Math.random() * 2_000_000_000);
  const apk = await made("/apk", { kind: "bookapp", versionCode: apkCode, versionName: "1.0" }, Apk);
  return {
    bookIds: [book.id, other.id],
    versionIds: [version.id],
    activationIds: [activation.id],
    qrCodeIds: [qr.id],
    apkIds: [apk.id],
    codes: [qr.code],
  };
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const weird = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "null",
    "true",
    "-1",
    "0",
    "1e309",
    "NaN",
    "%00",
    "../etc/passwd",
    "'; DROP TABLE book;--",
  ),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer({ min: 1000, max: 100_000 }).map((n) => "ä€😀".repeat(Math.ceil(n / 3)).slice(0, n)),
);
const hugeNumber = fc.constantFrom(
  -1,
  0,
  -9007199254740991,
  9007199254740992,
  2 ** 63,
  2 ** 64,
  1e308,
  1.5,
  -0.5,
  Number.MAX_SAFE_INTEGER,
);
const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  hugeNumber,
  weird,
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

/** Ids that exist right now for a field or parameter of that name, or none. */
function knownIds(name: string, path: string): number[] {
  const lower = name.toLowerCase();
  if (lower === "bookid") return seeded.bookIds;
  if (lower !== "id") return [];
  if (path.startsWith("/bookversion")) return seeded.versionIds;
  if (path.startsWith("/activation-qr-code")) return seeded.qrCodeIds;
  if (path.startsWith("/activation")) return seeded.activationIds;
  if (path.startsWith("/apk")) return seeded.apkIds;
  return seeded.bookIds;
}

/** Mostly valid values for a JSON schema; the referring field's name steers ids and codes. */
function valid(schemaIn: Schema, name = "", path = ""): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf || schema.oneOf)
    return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => valid(s, name, path)));
  const types: string[] = Array.isArray(schema.type) ? schema.type : [schema.type ?? "object"];
  const nonNull = types.filter((type) => type !== "null");
  const base = typed(schema, nonNull[0] ?? "null", name, path);
  return types.includes("null")
    ? fc.oneof({ arbitrary: base, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 })
    : base;
}

function typed(schema: Schema, type: string, name: string, path: string): fc.Arbitrary<unknown> {
  switch (type) {
    case "integer": {
      const ids = knownIds(name, path);
      const min = schema.minimum ?? -1_000_000;
      const max = Math.min(schema.maximum ?? Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
      const any = fc.integer({ min: Math.max(min, Number.MIN_SAFE_INTEGER), max });
      return ids.length ? fc.oneof({ arbitrary: fc.constantFrom(...ids), weight: 4 }, any) : any;
    }
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return fc.array(valid(schema.items ?? {}, name, path), { maxLength: 3 });
    case "object": {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, value] of Object.entries(properties)) record[key] = valid(value, key, path);
      return fc.record(record, { requiredKeys: Object.keys(properties).filter((key) => required.has(key)) });
    }
    default:
      return validString(schema, name);
  }
}

function validString(schema: Schema, name: string): fc.Arbitrary<string> {
  if (name === "code")
    return fc.oneof(fc.constantFrom(...seeded.codes), fc.stringMatching(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/));
  if (name.toLowerCase() === "useruuid")
    return fc.oneof(fc.constantFrom(callers.user!.uuid, callers.admin!.uuid), fc.uuid({ version: 4 }));
  if (name === "email") return fc.oneof(fc.constant(target.email), fc.emailAddress());
  if (name === "password")
    return fc.oneof(fc.constant(TEST_PASSWORD), fc.string({ minLength: 8, maxLength: 30 }));
  if (name === "isbn") return fc.constantFrom("978-0-15-601219-5", "0-306-40615-2", "9780306406157", "123");
  if (name === "language") return fc.constantFrom("en", "en-GB", "de-CH", "zh-Hant-TW", "x", "not a tag");
  if (schema.format === "date-time")
    return fc
      .date({
        min: new Date("2000-01-01T00:00:00Z"),
        max: new Date("2100-01-01T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString());
  if (schema.format === "uuid") return fc.uuid({ version: 4 });
  if (schema.format === "email") return fc.emailAddress();
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  return fc.string({
    unit: "grapheme",
    minLength: schema.minLength ?? 0,
    maxLength: Math.min(schema.maxLength ?? 60, 60),
  });
}

/** A JSON body: valid, or with one field broken, a required one dropped, or not an object at all. */
function jsonBody(schemaIn: Schema, path: string): fc.Arbitrary<unknown> {
  const schema = resolve(schemaIn);
  const good = valid(schema, "", path);
  const properties = Object.keys(schema.properties ?? {});
  if (properties.length === 0) return fc.oneof(good, wrongType);
  const brokenField = fc
    .tuple(good, fc.constantFrom(...properties), wrongType)
    .map(([body, key, value]) => ({ ...(body as object), [key]: value }));
  const hugeField = fc
    .tuple(good, fc.constantFrom(...properties), fc.integer({ min: 301, max: 200_000 }))
    .map(([body, key, length]) => ({ ...(body as object), [key]: "x".repeat(length) }));
  const dropped = fc
    .tuple(good, fc.constantFrom(...properties))
    .map(([body, key]) => Object.fromEntries(Object.entries(body as object).filter(([k]) => k !== key)));
  const extra = good.map((body) => ({ ...(body as object), unknownField: "ignored", __proto__x: 1 }));
  return fc.oneof(
    { arbitrary: good, weight: 5 },
    { arbitrary: brokenField, weight: 3 },
    { arbitrary: hugeField, weight: 1 },
    { arbitrary: dropped, weight: 2 },
    { arbitrary: extra, weight: 1 },
    { arbitrary: wrongType, weight: 1 },
  );
}

/** A path or query value as text: usually valid for its schema, sometimes not at all. */
function parameterValue(parameter: Parameter, path: string): fc.Arbitrary<string | string[] | undefined> {
  const schema = resolve(parameter.schema);
  const text = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));
  let good: fc.Arbitrary<string | string[]>;
  if (parameter.name === "userUUID")
    good = fc.oneof(fc.constantFrom(callers.user!.uuid, callers.admin!.uuid), fc.uuid({ version: 4 }));
  else if (parameter.name === "sort") {
    const fields = /^\^\(([^)]*)\)/.exec(schema.items?.pattern ?? "")?.[1]?.split("|") ?? ["id"];
    const one = fc
      .tuple(fc.constantFrom(...fields), fc.constantFrom("", ",asc", ",desc", ",DESC"))
      .map(([f, d]) => f + d);
    good = fc.array(one, { minLength: 1, maxLength: 3 });
  } else good = valid(schema, parameter.name, path).map(text);
  const bad: fc.Arbitrary<string | string[]> = fc.oneof(
    hugeNumber.map(String),
    weird,
    fc.constantFrom(
      "00000000-0000-0000-0000-000000000000",
      "3F0D6A1E-2B7C-4C8E-9A51-0D2F6B7E8C91",
      "{id}",
      "1,2",
    ),
    fc.constant<string[]>(["unknownField", "id,sideways", "title;drop", ""]),
  );
  const choices: fc.WeightedArbitrary<string | string[] | undefined>[] = [
    { arbitrary: good, weight: 6 },
    { arbitrary: bad, weight: 3 },
  ];
  if (parameter.in !== "path") choices.push({ arbitrary: fc.constant(undefined), weight: 3 });
  return fc.oneof(...choices);
}

interface FuzzRequest {
  as: "admin" | "user" | "nobody";
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const params: Record<string, fc.Arbitrary<string | string[] | undefined>> = {};
  for (const parameter of op.parameters)
    params[`${parameter.in}:${parameter.name}`] = parameterValue(parameter, op.path);
  const caller = fc.constantFrom("admin", "admin", "user", "user", "nobody") as fc.Arbitrary<
    FuzzRequest["as"]
  >;
  const jsonSchema = op.requestBody?.content["application/json"]?.schema;
  const multipart = op.requestBody?.content["multipart/form-data"];

  type Body = { contentType?: string; body?: string | Uint8Array };
  let body: fc.Arbitrary<Body> = fc.constant({});
  if (jsonSchema) {
    const good = jsonBody(jsonSchema, op.path).map(
      (value): Body => ({
        contentType: "application/json",
        body: JSON.stringify(value),
      }),
    );
    const malformed = fc
      .constantFrom('{"title": ', "{'a':1}", "[1,2", "nul", "\u0000", '{"a":1}}', "")
      .map((text): Body => ({ contentType: "application/json", body: text }));
    const wrongContentType = fc
      .tuple(
        fc.constantFrom("text/plain", "application/xml", "application/x-www-form-urlencoded", "image/png"),
        good,
      )
      .map(([contentType, b]): Body => ({ contentType, body: b.body }));
    body = fc.oneof(
      { arbitrary: good, weight: 8 },
      { arbitrary: malformed, weight: 2 },
      { arbitrary: wrongContentType, weight: 1 },
      { arbitrary: fc.constant({}), weight: 1 },
    );
  } else if (multipart) {
    // A few broken uploads only: no binary content generation.
    const boundary = "fuzzboundary";
    body = fc.constantFrom<Body>(
      {},
      { contentType: "multipart/form-data", body: "no boundary" },
      { contentType: `multipart/form-data; boundary=${boundary}`, body: `--${boundary}--\r\n` },
      {
        contentType: `multipart/form-data; boundary=${boundary}`,
        body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\nnot what it should be\r\n--${boundary}--\r\n`,
      },
      {
        contentType: `multipart/form-data; boundary=${boundary}`,
        body: `--${boundary}\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n`,
      },
      { contentType: "application/json", body: "{}" },
    );
  }
  return fc.record({ caller, params: fc.record(params), body }).map(({ caller, params, body }) => {
    let url = op.path;
    const query = new URLSearchParams();
    const headers: Record<string, string> = {};
    for (const parameter of op.parameters) {
      const value = params[`${parameter.in}:${parameter.name}`];
      if (value === undefined) continue;
      if (parameter.in === "path")
        url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value).toWellFormed()));
      else if (parameter.in === "query")
        for (const one of Array.isArray(value) ? value : [value])
          query.append(parameter.name, one.toWellFormed());
      else if (typeof value === "string" && /^[\t\x20-\x7e]*$/.test(value)) headers[parameter.name] = value;
    }
    const search = query.toString();
    if (body.contentType) headers["content-type"] = body.contentType;
    return { as: caller, url: search ? `${url}?${search}` : url, headers, body: body.body };
  });
}

// ---------------------------------------------------------------------------------------------
// The invariants

const codes = new Set<string>(errorCodes);
/** Answers seen per operation and status class: a fuzzer that never reaches a 2xx checks little. */
const seen = new Map<string, Record<string, number>>();

async function check(op: Operation, request: FuzzRequest): Promise<void> {
  const headers = { ...request.headers };
  if (request.as !== "nobody") headers.authorization = `Bearer ${callers[request.as]!.token}`;
  const response = await t.app.request(request.url, { method: op.method, headers, body: request.body });
  const where = `${op.method} ${request.url} as ${request.as} → ${response.status}`;
  const tally = seen.get(`${op.method} ${op.path}`) ?? {};
  tally[response.status] = (tally[response.status] ?? 0) + 1;
  seen.set(`${op.method} ${op.path}`, tally);
  const contentType = (response.headers.get("content-type") ?? "").toLowerCase();
  const text = await response.text();

  if (response.status >= 500) throw new Error(`${where}: server error ${text.slice(0, 500)}`);
  if (response.status >= 400) {
    // An OPDS catalog's 401 is its Authentication Document (README "Reading apps"), as reading
    // apps expect; it must be the media type and schema the document declares for that 401.
    const declared = op.responses[String(response.status)]?.content ?? {};
    const authDocument = "application/opds-authentication+json";
    if (response.status === 401 && contentType.startsWith(authDocument) && declared[authDocument]) {
      const validate = validatorFor(declared[authDocument].schema);
      if (!validate(JSON.parse(text)))
        throw new Error(`${where}: authentication document ${ajv.errorsText(validate.errors)}`);
      return;
    }
    if (!contentType.startsWith("application/problem+json"))
      throw new Error(`${where}: error as ${contentType}`);
    const problem = JSON.parse(text);
    if (!codes.has(problem.code)) throw new Error(`${where}: unknown code ${problem.code}`);
    if (statusOf(problem.code) !== response.status)
      throw new Error(`${where}: ${problem.code} with that status`);
    if (problem.type !== `urn:problem:${kebab(problem.code)}`)
      throw new Error(`${where}: type ${problem.type}`);
    const validate = validatorFor({ $ref: "#/components/schemas/Problem" });
    if (!validate(problem)) throw new Error(`${where}: problem ${ajv.errorsText(validate.errors)}`);
    if (/\bat .*\.ts:\d+|SELECT |INSERT |\/tmp\/|node_modules/.test(text))
      throw new Error(`${where}: internals leak: ${text.slice(0, 300)}`);
    // Every error a client can get is in the document. 405 is the path's, not an operation's;
    // an empty path parameter makes another path, which is nobody's (404).
    const pathname = request.url.split("?")[0]!;
    const otherPath = response.status === 404 && (pathname.includes("//") || pathname.endsWith("/"));
    if (response.status !== 405 && !otherPath && !op.responses[String(response.status)])
      throw new Error(`${where}: an error status that is not among the documented responses`);
    return;
  }
  const documented = op.responses[String(response.status)];
  if (!documented) throw new Error(`${where}: undocumented status`);
  if (response.status === 304 || !documented.content) return;
  const mediaType = Object.keys(documented.content).find((type) => contentType.startsWith(type));
  if (!mediaType) throw new Error(`${where}: ${contentType} is not among ${Object.keys(documented.content)}`);
  if (mediaType !== "application/json") return;
  if (op.path.endsWith("/logout") && request.as !== "nobody") {
    callers[request.as] = await login(callers[request.as]!.email);
  }
  const validate = validatorFor(documented.content[mediaType]!.schema);
  const body = JSON.parse(text);
  if (!validate(body))
    throw new Error(`${where}: body breaks its schema: ${ajv.errorsText(validate.errors)}`);
}

describe("schema-driven fuzzing", () => {
  beforeAll(async () => {
    callers.admin = await t.admin();
    callers.user = await t.user();
    target = await t.user();
  });
  afterAll(async () => {
    for (const [name, tally] of seen) console.log(`${name}: ${JSON.stringify(tally)}`);
    await t.close();
  });

  test("the document has operations to fuzz, and the validator has teeth", async () => {
    expect(operations.length).toBeGreaterThan(40);
    const book = await bodyAs(
      await t.call("POST", "/book", { token: callers.admin!.token, json: { title: "Teeth" } }),
      Book,
    );
    const validate = validatorFor(
      operations.find((op) => op.method === "GET" && op.path === "/book/{id}")!.responses["200"]!.content![
        "application/json"
      ]!.schema,
    );
    expect(validate(book)).toBe(true);
    expect(validate({ ...book, title: undefined })).toBe(false);
    expect(validate({ ...book, createdAt: "yesterday" })).toBe(false);
    expect(validate({ ...book, id: "7" })).toBe(false);
  });

  test.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))("%s", async (_name, op) => {
    await ensureCallers();
    seeded = await seed();
    await fc.assert(
      fc.asyncProperty(requestFor(op), (request) => check(op, request)),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
