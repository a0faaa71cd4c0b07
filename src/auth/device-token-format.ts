// Device tokens (app passwords, README "Reading apps"): `bdt_` + 30 base62 characters from a
// cryptographic random source (178 bits) + a 6-character base62 CRC32 of those 30. The checksum
// tells a pasted typo from a revoked token without a database lookup; the stored forms are
// digests only, so a copy of the database names no token.
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";

/** What a token may be good for: the OPDS catalogs, the progress sync, the offline entitlements. */
export const DEVICE_TOKEN_SCOPES = ["opds", "sync", "entitlements"] as const;
export type DeviceTokenScope = (typeof DEVICE_TOKEN_SCOPES)[number];

export const DEVICE_TOKEN_PREFIX = "bdt_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6; // 62^6 > 2^32: every CRC32 fits
/** What DeviceToken.prefix shows of a token: its first 8 characters. */
const SHOWN_LENGTH = 8;
export const DEVICE_TOKEN_LENGTH = DEVICE_TOKEN_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

/** The prefix, then the random part and its checksum (30 + 6 base62 characters). */
const BODY = /^bdt_[0-9A-Za-z]{36}$/;

/** Whether a password is meant as a device token: then it is never checked as a shop password. */
export function looksLikeDeviceToken(password: string): boolean {
  return password.startsWith(DEVICE_TOKEN_PREFIX);
}

/** A new token: 30 unbiased base62 characters (bytes ≥ 248 are drawn again) and their checksum. */
export function newDeviceToken(): string {
  let random = "";
  while (random.length < RANDOM_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(RANDOM_LENGTH))) {
      // 248 = 4 × 62: below it every character is equally likely.
      if (byte < 248 && random.length < RANDOM_LENGTH) random += BASE62[byte % 62];
    }
  }
  return `${DEVICE_TOKEN_PREFIX}${random}${checksumOf(random)}`;
}

/** Whether `token` is well formed and its checksum matches: no lookup is worth making otherwise. */
export function hasValidChecksum(token: string): boolean {
  if (token.length !== DEVICE_TOKEN_LENGTH || !BODY.test(token)) return false;
  const random = token.slice(DEVICE_TOKEN_PREFIX.length, DEVICE_TOKEN_PREFIX.length + RANDOM_LENGTH);
  // Not a secret: the checksum is derived from the characters beside it.
  return token.slice(-CHECKSUM_LENGTH) === checksumOf(random);
}

/** The CRC32 of the random part in base62, zero-padded to 6 characters. */
export function checksumOf(random: string): string {
  let value = crc32(random);
  let out = "";
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** The stored form of a token: lower-case hex SHA-256 of its text (the lookup key). */
export function deviceTokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * The second stored form, for reading-progress clients (KOReader sends the lower-case hex MD5 of
 * its password as `x-auth-key`): the SHA-256 of that MD5, so the key a client sends can be looked
 * up (deviceTokenMd5Hash of the key it sent, not of a token) and the row still holds no MD5.
 */
export function deviceTokenMd5Hash(token: string): string {
  return md5KeyHash(createHash("md5").update(token).digest("hex"));
}

/** The stored form of a client's lower-case hex MD5 key (KOReader's `x-auth-key`). */
export function md5KeyHash(md5Hex: string): string {
  return createHash("sha256").update(md5Hex.toLowerCase()).digest("hex");
}

/** DeviceToken.prefix: what a list may show to tell tokens apart. */
export function shownPrefixOf(token: string): string {
  return token.slice(0, SHOWN_LENGTH);
}
