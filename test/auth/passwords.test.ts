import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  hashPassword,
  PASSWORD_HASH_COST,
  schemeCost,
  verifyAgainstDummy,
  verifyPassword,
  wordpressSlash,
} from "../../src/auth/passwords";
import { wordpressFixtures as fixtures } from "../helpers/wordpress";

interface PasswordVector {
  id: string;
  scheme: string;
  password: string;
  hash: string;
  expected: boolean;
  note: string;
}

const vectors = (
  JSON.parse(readFileSync(join(fixtures, "password-vectors.json"), "utf8")) as {
    vectors: PasswordVector[];
  }
).vectors;

const byteLength = (text: string) => Buffer.byteLength(text);

// Cheap hashes for tests that only need the format, not the production cost.
async function bcryptOf(key: string | Uint8Array): Promise<string> {
  const hash = await Bun.password.hash(key, { algorithm: "bcrypt", cost: 4 });
  return hash.replace(/^\$2b\$/, "$2y$");
}

async function wpHashOfRaw(input: string): Promise<string> {
  const mac = createHmac("sha384", "wp-sha384").update(input).digest("base64");
  return `$wp${await bcryptOf(mac)}`;
}

describe("password vectors made by WordPress", () => {
  test("the file has vectors of every scheme", () => {
    const schemes = new Set(vectors.map((v) => v.scheme));
    expect([...schemes].sort()).toEqual(["bcrypt", "md5", "phpass", "wp-bcrypt"]);
    expect(vectors.some((v) => !v.expected)).toBe(true);
  });

  test.each(vectors.map((v) => [v.id, v] as const))("%s", async (_id, vector) => {
    expect(await verifyPassword(vector.password, vector.hash)).toBe(vector.expected);
  });
});

describe("wordpressSlash", () => {
  test("adds slashes like addslashes() and trims like trim()", () => {
    expect(wordpressSlash(`it's "quoted"`)).toBe(`it\\'s \\"quoted\\"`);
    expect(wordpressSlash("back\\slash")).toBe("back\\\\slash");
    expect(wordpressSlash("nul\0byte")).toBe("nul\\0byte");
    expect(wordpressSlash(" \t\n\r\x0Bpw\x0B\r\n\t ")).toBe("pw");
    // Slashing happens before trimming: a NUL becomes "\0" and is no longer trimmed.
    expect(wordpressSlash("\0pw\0 ")).toBe("\\0pw\\0");
    // Not in PHP's trim set.
    expect(wordpressSlash("\u00a0pw\u00a0")).toBe("\u00a0pw\u00a0");
  });
});

describe("hashPassword", () => {
  test("makes a $wp$2y$10$ hash that verifies, and rejects a wrong password", async () => {
    const hash = await hashPassword("new password", PASSWORD_HASH_COST);
    expect(hash.startsWith("$wp$2y$10$")).toBe(true);
    expect(hash).toHaveLength(63);
    expect(await verifyPassword("new password", hash)).toBe(true);
    expect(await verifyPassword(" new password ", hash)).toBe(true);
    expect(await verifyPassword("new passwordx", hash)).toBe(false);
  });

  test("hashes the slashed form, as WordPress forms do", async () => {
    const hash = await hashPassword(`it's "quoted"`, PASSWORD_HASH_COST);
    const mac = createHmac("sha384", "wp-sha384").update(`it\\'s \\"quoted\\"`).digest("base64");
    expect(await Bun.password.verify(mac, hash.slice(3))).toBe(true);
    expect(await verifyPassword(`it's "quoted"`, hash)).toBe(true);
  });
});

describe("verifyPassword", () => {
  test('rejects an empty password and "0", as WordPress does', async () => {
    expect(await verifyPassword("", await wpHashOfRaw(""))).toBe(false);
    expect(await verifyPassword("0", await wpHashOfRaw("0"))).toBe(false);
    expect(await verifyPassword("0", "cfcd208495d565ef66e7dff9f98764da")).toBe(false);
    // wp_authenticate() trims before its empty() check.
    expect(await verifyPassword("  ", await wpHashOfRaw(""))).toBe(false);
    expect(await verifyPassword(" 0 ", await wpHashOfRaw("0"))).toBe(false);
  });

  test("the three fixture users of schema.sql log in with their documented passwords", async () => {
    const schema = readFileSync(join(fixtures, "schema.sql"), "utf8");
    const users = [
      { login: "admin", password: "correct horse battery staple" },
      { login: "manager", password: "Pässwörd-日本語-🔐" },
      { login: "jane.doe", password: `it's "quoted"` },
    ];
    for (const { login, password } of users) {
      const row = schema.split("\n").find((line) => line.includes(`, '${login}', '`));
      const hash = row?.split("'")[3];
      expect(hash, login).toBeString();
      expect(await verifyPassword(password, hash!), login).toBe(true);
      expect(await verifyPassword(`${password}x`, hash!), login).toBe(false);
    }
  });

  test("falls back to the unslashed password for hashes written by other tools", async () => {
    const password = ` it's "quoted" `;
    const hash = await wpHashOfRaw(password.trim());
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(`it's "quotedx"`, hash)).toBe(false);
    // trim() also strips a NUL, which slashing would have turned into "\0".
    expect(await verifyPassword(`${password.trim()}\0`, hash)).toBe(true);
  });

  test("a malformed or unknown hash is false, never an exception", async () => {
    const malformed = [
      "$2y$10$short",
      "$2y$99$w1fMjDgnK/XcV8CJh3GOmO6XodMiD3LTpkORC1/cH/QgW4h0/DY8G",
      "$wp$2y$10$short",
      "$wp",
      "$wp-not-a-hash-at-all-but-long-enough",
      "$P$",
      "$P$!3gK8WZ6O2p7fdfUGYdokVr00NY7rq1",
      "$P$B3gK",
      "$argon2id$v=19$m=1,t=1,p=1$xx$yy",
      "$1$saltsalt$abcdefghijklmnopqrstuv",
      "not a hash but longer than thirty-two characters",
      "",
    ];
    for (const hash of malformed) {
      expect(await verifyPassword("correct horse battery staple", hash), hash).toBe(false);
    }
  });

  test("argon2 hashes verify", async () => {
    const hash = await Bun.password.hash("argon password", {
      algorithm: "argon2id",
      memoryCost: 1024,
      timeCost: 1,
    });
    expect(await verifyPassword("argon password", hash)).toBe(true);
    expect(await verifyPassword("argon passwordx", hash)).toBe(false);
  });

  test("an input over 4096 bytes is rejected except by the legacy MD5 check", async () => {
    const long = "a".repeat(4097);
    expect(await verifyPassword(long, await wpHashOfRaw(long))).toBe(false);
    const ok = "a".repeat(4096);
    expect(await verifyPassword(ok, await wpHashOfRaw(ok))).toBe(true);
    const md5 = new Bun.CryptoHasher("md5").update(long).digest("hex");
    expect(await verifyPassword(long, md5)).toBe(true);
  });
});

describe("plain bcrypt uses only the first 72 bytes, like PHP", () => {
  test("the vectors cover a bcrypt password longer than 72 bytes", () => {
    const long = vectors.filter((v) => v.scheme === "bcrypt" && v.expected && byteLength(v.password) > 72);
    expect(long.length).toBeGreaterThan(0);
  });

  test("a password sharing the first 72 bytes of the bcrypt/long vector also verifies", async () => {
    const real = vectors.find((v) => v.id === "bcrypt/long")!;
    const other = vectors.find((v) => v.id === "wp-bcrypt/long/wrong")!;
    expect(Buffer.from(other.password).subarray(0, 72)).toEqual(Buffer.from(real.password).subarray(0, 72));
    expect(await verifyPassword(other.password, real.hash)).toBe(true);
  });

  test("a cut through a multibyte character at byte 72 still verifies", async () => {
    // 71 ASCII bytes then "é" (2 bytes): byte 72 is half of the "é".
    const password = `${"a".repeat(71)}é and then more`;
    const hash = await bcryptOf(Buffer.from(password).subarray(0, 72));
    expect(hash.startsWith("$2y$04$")).toBe(true);
    expect(await verifyPassword(password, hash)).toBe(true);
    expect(await verifyPassword(`${"a".repeat(71)}é but another tail`, hash)).toBe(true);
    // "è" starts with the same byte as "é", so it falls inside the 72 bytes identically.
    expect(await verifyPassword(`${"a".repeat(71)}è and then more`, hash)).toBe(true);
    expect(await verifyPassword(`${"a".repeat(71)}ж and then more`, hash)).toBe(false);
    expect(await verifyPassword("a".repeat(71), hash)).toBe(false);
  });
});

test("bcrypt stops at a NUL byte, as PHP's crypt_blowfish does", async () => {
  const hash = await bcryptOf("ab");
  expect(await verifyPassword("ab\0cd", hash)).toBe(true);
  expect(await verifyPassword("ac\0cd", hash)).toBe(false);
});

describe("verifyAgainstDummy", () => {
  test("returns false and takes about as long as a real check", async () => {
    const hash = vectors.find((v) => v.id === "wp-bcrypt/ascii")!.hash;
    const start = performance.now();
    await verifyPassword("some wrong password", hash);
    const real = performance.now() - start;
    const dummyStart = performance.now();
    expect(await verifyAgainstDummy("some wrong password")).toBe(false);
    const dummy = performance.now() - dummyStart;
    expect(dummy).toBeGreaterThan(real / 4);
    expect(await verifyAgainstDummy("")).toBe(false);
  });
});

describe("schemeCost", () => {
  test("orders the schemes by what a check of each costs", () => {
    const ordered = [
      "md5",
      "$P$B",
      "$P$D",
      "$argon2id$v=19$m=16384,t=2,p=1",
      "$wp$2y$10",
      "$argon2id$v=19$m=65536,t=4,p=1",
      "$2y$12",
    ];
    const costs = ordered.map(schemeCost);
    expect([...costs].sort((a, b) => a - b)).toEqual(costs);
    expect(new Set(costs).size).toBe(costs.length);
  });

  test("$wp$ bcrypt costs what plain bcrypt of the same cost does (the HMAC is nothing beside it)", () => {
    expect(schemeCost("$wp$2y$10")).toBe(schemeCost("$2y$10"));
  });

  test.each(["$H$B", "$P$!", "$2x$10", "$2y$03", "$argon2d$v=19$m=65536,t=4,p=1", "garbage"])(
    "%s: refused without hashing, costs nothing",
    (scheme) => {
      expect(schemeCost(scheme)).toBe(0);
    },
  );
});
