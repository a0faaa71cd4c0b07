// The cryptography of offline entitlements (README "Offline entitlements"): Ed25519 keys through
// WebCrypto, their RFC 7638 thumbprints, compact JWS (RFC 7515, `alg: "EdDSA"` of RFC 8037), and
// the private halves sealed with AES-256-GCM under a key derived (HKDF-SHA256) from JWT_SECRET.
// Nothing here logs; a private key leaves this module only sealed.
import { createHash, hkdfSync } from "node:crypto";

/** A public Ed25519 key as JWK (RFC 8037 §2): what the JWKS lists, with alg, use and kid added. */
export interface PublicOkpJwk {
  kty: "OKP";
  crv: "Ed25519";
  x: string;
}

export interface NewSigningKey {
  kid: string;
  publicJwk: PublicOkpJwk;
  /** base64url(iv ‖ ciphertext ‖ tag): the PKCS #8 private key, sealed (sealPrivateKey). */
  sealed: string;
}

const ED25519 = { name: "Ed25519" } as const;
const encoder = new TextEncoder();
const IV_BYTES = 12;

const base64url = (bytes: Uint8Array | ArrayBuffer) =>
  Buffer.from(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes).toString("base64url");

/** RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace. */
export function jwkThumbprint(jwk: PublicOkpJwk): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x });
  return createHash("sha256").update(canonical).digest("base64url");
}

/**
 * The AES key that seals private halves, derived from JWT_SECRET with its own `info`, so it is
 * never the session-signing key itself; every instance with the same secret derives the same.
 */
async function sealingKey(jwtSecret: string): Promise<CryptoKey> {
  const raw = hkdfSync("sha256", jwtSecret, "bookdist", "bookdist entitlement-key sealing v1", 32);
  return crypto.subtle.importKey("raw", new Uint8Array(raw), { name: "AES-GCM" }, false, [
    "encrypt",
    "decrypt",
  ]);
}

/** A fresh key pair: its kid, public JWK and sealed private half (the kid bound as AAD). */
export async function generateSigningKey(jwtSecret: string): Promise<NewSigningKey> {
  const pair = (await crypto.subtle.generateKey(ED25519, true, ["sign", "verify"])) as CryptoKeyPair;
  const exported = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as { x?: string };
  const publicJwk: PublicOkpJwk = { kty: "OKP", crv: "Ed25519", x: String(exported.x) };
  const kid = jwkThumbprint(publicJwk);
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const sealed = await sealPrivateKey(jwtSecret, kid, pkcs8);
  pkcs8.fill(0);
  return { kid, publicJwk, sealed };
}

async function sealPrivateKey(
  jwtSecret: string,
  kid: string,
  pkcs8: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(kid) },
    await sealingKey(jwtSecret),
    pkcs8,
  );
  return base64url(Buffer.concat([iv, new Uint8Array(ciphertext)]));
}

/** Thrown when a sealed key does not open: JWT_SECRET is not the one it was sealed under. */
export class SealedKeyError extends Error {
  constructor(kid: string) {
    super(`entitlement key ${kid} cannot be unsealed: JWT_SECRET differs from the one that sealed it`);
  }
}

/** The signing key of a sealed private half, not extractable again. */
export async function unsealSigningKey(jwtSecret: string, kid: string, sealed: string): Promise<CryptoKey> {
  const bytes = new Uint8Array(Buffer.from(sealed, "base64url"));
  let pkcs8: Uint8Array<ArrayBuffer>;
  try {
    pkcs8 = new Uint8Array(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: encoder.encode(kid) },
        await sealingKey(jwtSecret),
        bytes.subarray(IV_BYTES),
      ),
    );
  } catch {
    throw new SealedKeyError(kid);
  }
  try {
    return await crypto.subtle.importKey("pkcs8", pkcs8, ED25519, false, ["sign"]);
  } finally {
    pkcs8.fill(0);
  }
}

/** A private key given as an OKP JWK (d and x): how RFC 8037's examples give theirs. */
export function importPrivateJwk(jwk: PublicOkpJwk & { d: string }): Promise<CryptoKey> {
  return crypto.subtle.importKey("jwk", { ...jwk }, ED25519, false, ["sign"]);
}

/**
 * A compact JWS: base64url(JSON header) . base64url(payload) . base64url(Ed25519 signature of
 * the first two joined by a dot), RFC 7515 §7.1.
 */
export async function signCompactJws(
  header: Record<string, unknown>,
  payload: Uint8Array | string,
  key: CryptoKey,
): Promise<string> {
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const signingInput = `${base64url(encoder.encode(JSON.stringify(header)))}.${base64url(body)}`;
  const signature = await crypto.subtle.sign(ED25519, key, encoder.encode(signingInput));
  return `${signingInput}.${base64url(signature)}`;
}
