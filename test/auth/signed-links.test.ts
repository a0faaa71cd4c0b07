import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { LinkSigner, SIGNED_LINK_TTL_SECONDS } from "../../src/auth/signed-links";

const SECRET = "test-secret-that-is-long-enough-for-hs256";
const facts = {
  path: "/opds/download/3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91/7",
  userUuid: "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91",
  sha256: "a".repeat(64),
  expiresAt: 1_800_000_000,
};
const now = facts.expiresAt - SIGNED_LINK_TTL_SECONDS;

describe("signed links", () => {
  const signer = new LinkSigner(SECRET);
  const signature = signer.sign(facts);

  test("a signature is 32 bytes of base64url and verifies for exactly its facts until it expires", () => {
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(signer.verify(facts, signature, now)).toBe(true);
    expect(signer.verify(facts, signature, facts.expiresAt)).toBe(true);
    expect(signer.verify(facts, signature, facts.expiresAt + 1)).toBe(false);
    for (const changed of [
      { ...facts, path: `${facts.path}0` },
      { ...facts, userUuid: "00000000-0000-4000-8000-000000000000" },
      { ...facts, sha256: "b".repeat(64) },
      { ...facts, expiresAt: facts.expiresAt + 1 },
    ]) {
      expect(signer.verify(changed, signature, now)).toBe(false);
    }
  });

  test("fields cannot run into each other: moving a character from the path to the user changes the signature", () => {
    const moved = { ...facts, path: facts.path.slice(0, -1), userUuid: `7${facts.userUuid}` };
    expect(signer.sign(moved)).not.toBe(signature);
  });

  test("only the canonical spelling verifies; another secret's signatures do not", () => {
    expect(signer.verify(facts, `${signature}=`, now)).toBe(false);
    expect(signer.verify(facts, signature.slice(0, -1), now)).toBe(false);
    expect(signer.verify(facts, `${signature.slice(0, -1)}!`, now)).toBe(false);
    expect(new LinkSigner(`${SECRET}!`).verify(facts, signature, now)).toBe(false);
  });

  test("the key is derived (HKDF), not JWT_SECRET itself: an HMAC under the secret does not verify", () => {
    const raw = createHmac("sha256", SECRET)
      .update(JSON.stringify([facts.path, facts.userUuid, facts.sha256, facts.expiresAt]))
      .digest("base64url");
    expect(raw).not.toBe(signature);
    expect(signer.verify(facts, raw, now)).toBe(false);
  });
});
