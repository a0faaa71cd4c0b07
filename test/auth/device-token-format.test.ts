// The device-token format (README "Reading apps"): bdt_ + 30 base62 + a 6-character base62 CRC32
// of the 30. The checksum is decoded here independently and compared with Bun's own CRC32.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  checksumOf,
  DEVICE_TOKEN_LENGTH,
  deviceTokenHash,
  deviceTokenMd5Hash,
  hasValidChecksum,
  looksLikeDeviceToken,
  md5KeyHash,
  newDeviceToken,
  shownPrefixOf,
} from "../../src/auth/device-token-format";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const decode62 = (text: string) => [...text].reduce((value, char) => value * 62 + BASE62.indexOf(char), 0);

describe("device-token format", () => {
  test("bdt_ + 30 base62 + the base62 CRC32 of the 30, zero-padded to 6", () => {
    for (let i = 0; i < 200; i++) {
      const token = newDeviceToken();
      expect(token).toMatch(/^bdt_[0-9A-Za-z]{36}$/);
      expect(token.length).toBe(DEVICE_TOKEN_LENGTH);
      const random = token.slice(4, 34);
      expect(decode62(token.slice(34))).toBe(Bun.hash.crc32(random));
      expect(hasValidChecksum(token)).toBe(true);
      expect(looksLikeDeviceToken(token)).toBe(true);
      expect(shownPrefixOf(token)).toBe(token.slice(0, 8));
    }
  });

  test("a small CRC is padded with zeros; known values", () => {
    expect(checksumOf("123456789")).toHaveLength(6);
    expect(decode62(checksumOf("123456789"))).toBe(0xcbf43926);
    // CRC32 of "" is 0: six zeros.
    expect(checksumOf("")).toBe("000000");
  });

  test("tokens are unique and every base62 character is used", () => {
    const tokens = new Set(Array.from({ length: 2000 }, newDeviceToken));
    expect(tokens.size).toBe(2000);
    const seen = new Set([...tokens].flatMap((token) => [...token.slice(4, 34)]));
    expect(seen.size).toBe(62);
  });

  test("every single-character typo and every swap of two neighbours is caught", () => {
    const token = newDeviceToken();
    for (let at = 4; at < token.length; at++) {
      for (const char of BASE62) {
        if (char === token[at]) continue;
        const typo = token.slice(0, at) + char + token.slice(at + 1);
        expect(hasValidChecksum(typo), typo).toBe(false);
      }
      if (at + 1 < token.length && token[at] !== token[at + 1]) {
        const swapped = token.slice(0, at) + token[at + 1] + token[at] + token.slice(at + 2);
        expect(hasValidChecksum(swapped), swapped).toBe(false);
      }
    }
  });

  test("malformed: wrong prefix, length, or characters outside base62", () => {
    const token = newDeviceToken();
    for (const bad of [
      token.slice(1),
      `${token}0`,
      token.slice(0, -1),
      `BDT_${token.slice(4)}`,
      `bdt-${token.slice(4)}`,
      `${token.slice(0, 10)}-${token.slice(11)}`,
      `${token.slice(0, 10)}é${token.slice(11)}`,
      "",
      "bdt_",
    ]) {
      expect(hasValidChecksum(bad), bad).toBe(false);
    }
  });

  test("the stored digests: SHA-256 of the token, and SHA-256 of its lower-case hex MD5", () => {
    const token = newDeviceToken();
    const md5 = createHash("md5").update(token).digest("hex");
    expect(deviceTokenHash(token)).toBe(createHash("sha256").update(token).digest("hex"));
    expect(deviceTokenMd5Hash(token)).toBe(createHash("sha256").update(md5).digest("hex"));
    // A client's key in upper case is the same key.
    expect(md5KeyHash(md5.toUpperCase())).toBe(deviceTokenMd5Hash(token));
  });
});
