import { describe, expect, spyOn, test } from "bun:test";
import {
  generateActivationCode,
  isCanonicalActivationCode,
  normalizeActivationCode,
} from "../../src/services/activation-code";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

describe("activation codes", () => {
  test("16 Crockford base32 symbols in four dash-separated groups", () => {
    for (let i = 0; i < 200; i++) {
      const code = generateActivationCode();
      expect(code).toMatch(/^[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
      expect(isCanonicalActivationCode(code)).toBe(true);
      for (const symbol of code.replaceAll("-", "")) expect(CROCKFORD).toContain(symbol);
    }
  });

  test("80 bits from crypto.getRandomValues, encoded exactly", () => {
    const spy = spyOn(crypto, "getRandomValues").mockImplementation(
      <T extends ArrayBufferView | null>(array: T) => {
        // 0xFF…FF encodes as all Z (31); 0x00…00 as all 0; this pattern pins the bit order.
        const bytes = array as unknown as Uint8Array;
        bytes.set([0x00, 0x44, 0x32, 0x14, 0xc7, 0x42, 0x54, 0xb6, 0x35, 0xcf]);
        return array;
      },
    );
    try {
      // 00000 00001 00010 00011 00100 00101 00110 00111 01000 01001 01010 01011 01100 01101 01110 01111
      expect(generateActivationCode()).toBe("0123-4567-89AB-CDEF");
      expect(spy).toHaveBeenCalledTimes(1);
      expect((spy.mock.calls[0]![0] as Uint8Array).length).toBe(10);
    } finally {
      spy.mockRestore();
    }
  });

  test("codes do not repeat", () => {
    const codes = new Set(Array.from({ length: 10_000 }, generateActivationCode));
    expect(codes.size).toBe(10_000);
  });

  test("normalisation: case, dashes and spaces ignored; O→0, I/L→1", () => {
    expect(normalizeActivationCode("7kq4-m2xd-9rtf-0bha")).toBe("7KQ4-M2XD-9RTF-0BHA");
    expect(normalizeActivationCode(" 7KQ4 M2XD 9RTF OBHA ")).toBe("7KQ4-M2XD-9RTF-0BHA");
    expect(normalizeActivationCode("7KQ4M2XD9RTF0BHA")).toBe("7KQ4-M2XD-9RTF-0BHA");
    expect(normalizeActivationCode("7kq4--m2xd-9rtf-obha")).toBe("7KQ4-M2XD-9RTF-0BHA");
    expect(normalizeActivationCode("IiLl-oO00-1111-2222")).toBe("1111-0000-1111-2222");
  });

  test("anything that cannot be a code is null", () => {
    for (const input of [
      "",
      "7KQ4-M2XD-9RTF",
      "7KQ4-M2XD-9RTF-0BHA-0",
      "7KQ4-M2XD-9RTF-0BHU",
      "7KQ4-M2XD-9RTF-0BH!",
    ]) {
      expect(normalizeActivationCode(input)).toBeNull();
    }
    expect(isCanonicalActivationCode("7kq4-m2xd-9rtf-0bha")).toBe(false);
    expect(isCanonicalActivationCode("7KQ4-M2XD-9RTF-0BHU")).toBe(false);
  });
});
