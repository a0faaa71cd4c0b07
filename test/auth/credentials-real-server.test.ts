// What a stranger can do with the Authorization header of the real server: a Basic
// token in any spelling but its canonical one is refused before a password is checked, a JWT
// with a `crit` header is refused, and the answers that carry a token or the caller's profile
// are kept by no cache.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { expectProblem } from "../helpers/responses";

const JWT_SECRET = "credentials-test-secret-0123456789-abcdef";
const EMAIL = "strict-basic@example.com";
// Chosen so that the Basic tokens of both hold a `+` and end in padding (see spellingsOf).
const PASSWORD = "a~?>b~?>c ~?> good";
const WRONG_PASSWORD = "~~~ wrong ~~~";

let server: RealServer;
let token: string;

const base64 = (text: string | Buffer) => Buffer.from(text).toString("base64");
const base64url = (text: string) => Buffer.from(text).toString("base64url");

const me = (authorization: string) =>
  fetch(`${server.url}/authentication/me`, { headers: { Authorization: authorization } });

const postJson = (path: string, json: unknown) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(json),
  });

/**
 * Spellings Buffer.from(…, "base64") decodes to the same bytes as the canonical token: junk after
 * it, a second token, a space inside, no padding, other unused bits, too much padding, the
 * base64url alphabet.
 */
function spellingsOf(canonical: string): string[] {
  expect(canonical).toEndWith("=");
  expect(canonical).toMatch(/[+/]/);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const data = canonical.replace(/=+$/, "");
  const last = alphabet.indexOf(data.at(-1)!);
  // The lowest bit of the last character is never used when the token ends in padding.
  const otherBits = `${data.slice(0, -1)}${alphabet[last ^ 1]}${canonical.slice(data.length)}`;
  return [
    `${canonical}!`,
    `${canonical} ${canonical}`,
    `${canonical.slice(0, 4)} ${canonical.slice(4)}`,
    data,
    otherBits,
    `${canonical}=`,
    `${canonical}AA==`,
    canonical.replaceAll("+", "-").replaceAll("/", "_"),
  ];
}

beforeAll(async () => {
  // Throttling on: a password that is checked and fails counts against the account.
  server = await startRealServer({ env: { JWT_SECRET, THROTTLE: "on" } });
  const registered = await postJson("/authentication/register", { email: EMAIL, password: PASSWORD });
  expect(registered.status).toBe(201);
  token = ((await registered.json()) as { token: string }).token;
}, 60_000);

afterAll(() => server?.stop());

describe("HTTP Basic: exactly one canonical base64 token", () => {
  test("the canonical token works, under any case of the scheme", async () => {
    const canonical = base64(`${EMAIL}:${PASSWORD}`);
    for (const scheme of ["Basic", "basic", "BASIC"]) {
      expect((await me(`${scheme} ${canonical}`)).status).toBe(200);
    }
  });

  test("every other spelling of good credentials is 401", async () => {
    const canonical = base64(`${EMAIL}:${PASSWORD}`);
    for (const spelling of spellingsOf(canonical)) {
      const response = await me(`Basic ${spelling}`);
      expect({ spelling, status: response.status }).toEqual({ spelling, status: 401 });
      await expectProblem(response, 401, "AUTHENTICATION_FAILED");
    }
  });

  test("a malformed token costs no password check: the account's failures stay uncounted", async () => {
    // Were each of these checked, the account's limit of 10 failures would be used up half-way
    // and the rest would meet 429 (as they do when a lenient decoder reads them).
    const wrong = base64(`${EMAIL}:${WRONG_PASSWORD}`);
    const spellings = [
      ...spellingsOf(wrong),
      ...[..."!#$%&*.,;~"].map((junk) => `${wrong}${junk}`),
      `${wrong}${wrong}`,
      // Not UTF-8: decoded leniently, it would be a password holding U+FFFD.
      base64(Buffer.concat([Buffer.from(`${EMAIL}:`), Buffer.from([0xff, 0xfe, 0x41])])),
    ];
    const statuses = [];
    for (const spelling of spellings) statuses.push((await me(`Basic ${spelling}`)).status);
    expect(statuses).toEqual(spellings.map(() => 401));
    // A wrong password in the canonical spelling is checked, and counted, as always.
    expect((await me(`Basic ${wrong}`)).status).toBe(401);
  });
});

describe("Bearer", () => {
  const sign = (header: object, payload: string) => {
    const input = `${base64url(JSON.stringify(header))}.${payload}`;
    return `${input}.${createHmac("sha256", JWT_SECRET).update(input).digest("base64url")}`;
  };

  test("a token with a crit header parameter is 401, though correctly signed", async () => {
    const payload = token.split(".")[1]!;
    // The same claims under another header without crit: the forgery is otherwise sound.
    expect((await me(`Bearer ${sign({ alg: "HS256", typ: "JWT", kid: "k" }, payload)}`)).status).toBe(200);
    for (const crit of [["exp"], ["b64"], [], "exp"]) {
      const forged = sign({ alg: "HS256", typ: "JWT", crit }, payload);
      const response = await me(`Bearer ${forged}`);
      expect({ crit, status: response.status }).toEqual({ crit, status: 401 });
    }
  });
});

describe("Cache-Control: no-store on answers with a token or the caller's profile", () => {
  test("register, login and /authentication/me send it", async () => {
    const registered = await postJson("/authentication/register", {
      email: "no-store@example.com",
      password: PASSWORD,
    });
    expect(registered.status).toBe(201);
    expect(registered.headers.get("cache-control")).toBe("no-store");
    const login = await postJson("/authentication/login", { email: EMAIL, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.headers.get("cache-control")).toBe("no-store");
    const own = await me(`Bearer ${token}`);
    expect(own.status).toBe(200);
    expect(own.headers.get("cache-control")).toBe("no-store");
  });

  test("the OpenAPI document declares it on those answers", async () => {
    const doc = (await (await fetch(`${server.url}/v3/api-docs`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>>;
    };
    const declared = (path: string, method: string, status: string) =>
      Object.keys(doc.paths[path]?.[method]?.responses[status]?.headers ?? {});
    expect(declared("/authentication/register", "post", "201")).toContain("Cache-Control");
    expect(declared("/authentication/login", "post", "200")).toContain("Cache-Control");
    expect(declared("/authentication/me", "get", "200")).toContain("Cache-Control");
  });
});
