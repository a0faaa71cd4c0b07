import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { TokenSigner } from "../../src/auth/tokens";

describe("TokenSigner.verify", () => {
  const signer = new TokenSigner("tokens-test-secret-tokens-test-secret", "bookdist");
  const now = new Date("2026-11-22T12:00:00.000Z");
  const token = signer.sign({
    sub: "7d1b6c52-8a5e-4f7e-9d38-2f6f0e1f6a11",
    sid: "0f0e9c1a-3b2d-4c5e-8f70-1a2b3c4d5e6f",
    roles: ["user"],
    email: "reader@example.com",
    iat: Math.floor(now.getTime() / 1000),
    exp: Math.floor(now.getTime() / 1000) + 3600,
  });

  test("a token it signed verifies; a changed last character does not", () => {
    expect(signer.verify(token, now)?.email).toBe("reader@example.com");
    const last = token.at(-1) === "A" ? "B" : "A";
    expect(signer.verify(`${token.slice(0, -1)}${last}`, now)).toBeNull();
  });

  test("a signature as long in characters but not in bytes is refused, not thrown", () => {
    // Header values may carry Latin-1 characters, which are two bytes in UTF-8.
    expect(signer.verify(`${token.slice(0, -1)}é`, now)).toBeNull();
  });

  test("a header with crit is refused, though correctly signed; another extra parameter is not", () => {
    const secret = "tokens-test-secret-tokens-test-secret";
    const payload = token.split(".")[1]!;
    const signed = (header: object) => {
      const input = `${Buffer.from(JSON.stringify(header)).toString("base64url")}.${payload}`;
      return `${input}.${createHmac("sha256", secret).update(input).digest("base64url")}`;
    };
    expect(signer.verify(signed({ alg: "HS256", typ: "JWT", kid: "k" }), now)?.email).toBe(
      "reader@example.com",
    );
    expect(signer.verify(signed({ alg: "HS256", typ: "JWT", crit: ["exp"] }), now)).toBeNull();
    expect(signer.verify(signed({ alg: "HS256", crit: [] }), now)).toBeNull();
  });
});
