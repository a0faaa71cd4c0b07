import { describe, expect, test } from "bun:test";
import {
  PhpSerializeError,
  parsePhpSerialized,
  rolesFromCapabilities,
  serializeCapabilities,
} from "../../src/store/php-serialize";

describe("rolesFromCapabilities", () => {
  test("reads the roles WordPress and WooCommerce write", () => {
    expect(rolesFromCapabilities('a:1:{s:13:"administrator";b:1;}')).toEqual(["administrator"]);
    expect(rolesFromCapabilities('a:1:{s:12:"shop_manager";b:1;}')).toEqual(["shop_manager"]);
    expect(rolesFromCapabilities('a:1:{s:8:"customer";b:1;}')).toEqual(["customer"]);
  });

  test("reads several capabilities and keeps only truthy ones", () => {
    const text =
      'a:7:{s:8:"customer";b:1;s:6:"editor";b:0;s:10:"subscriber";i:1;s:6:"author";i:0;' +
      's:11:"contributor";s:3:"yes";s:5:"empty";s:0:"";s:4:"zero";s:1:"0";}';
    expect(rolesFromCapabilities(text)).toEqual(["customer", "subscriber", "contributor"]);
  });

  test("counts string lengths in UTF-8 bytes", () => {
    expect(rolesFromCapabilities('a:1:{s:7:"rédacteur";b:1;}')).toEqual([]);
    expect(rolesFromCapabilities('a:1:{s:10:"rédacteur";b:1;}')).toEqual(["rédacteur"]);
    expect(rolesFromCapabilities('a:2:{s:4:"日本";b:1;s:6:"日本";b:1;}')).toEqual([]);
    expect(rolesFromCapabilities('a:1:{s:6:"日本";b:1;}')).toEqual(["日本"]);
  });

  test("gives no roles for malformed input or a non-array", () => {
    const bad = [
      "",
      'a:1:{s:8:"customer";b:1;',
      'a:1:{s:9:"customer";b:1;}',
      'a:1:{s:8:"customer";b:1;}x',
      'a:2:{s:8:"customer";b:1;}',
      'a:1:{s:8:"customer";b:2;}',
      "a:1:{b:1;b:1;}",
      'a:1:{s:8:"customer";O:8:"stdClass":0:{}}',
      "not serialized at all",
      's:8:"customer";',
      "b:1;",
    ];
    for (const text of bad) expect(rolesFromCapabilities(text), text).toEqual([]);
  });

  test("a quote or brace inside a string does not confuse it", () => {
    expect(rolesFromCapabilities('a:2:{s:5:"a";b:";b:1;s:3:"}{}";b:1;}')).toEqual(['a";b:', "}{}"]);
  });
});

describe("parsePhpSerialized", () => {
  test("parses every scalar type and nested arrays", () => {
    const value = parsePhpSerialized(
      'a:6:{i:0;N;i:1;b:1;i:-2;i:-42;s:1:"d";d:0.5;s:3:"inf";d:-INF;s:6:"nested";a:1:{s:1:"k";d:1.0E+25;}}',
    );
    expect(value).toEqual(
      new Map<number | string, unknown>([
        [0, null],
        [1, true],
        [-2, -42],
        ["d", 0.5],
        ["inf", Number.NEGATIVE_INFINITY],
        ["nested", new Map([["k", 1e25]])],
      ]) as never,
    );
    expect(parsePhpSerialized("a:0:{}")).toEqual(new Map());
    expect(parsePhpSerialized('s:0:"";')).toBe("");
    expect(Number.isNaN(parsePhpSerialized("d:NAN;"))).toBe(true);
  });

  test("reads every spelling of a double PHP writes, and long digit runs in one pass", () => {
    for (const [text, value] of [
      ["d:1;", 1],
      ["d:1.;", 1],
      ["d:-1.5;", -1.5],
      ["d:.5;", 0.5],
      ["d:+2.5e-3;", 0.0025],
      ["d:1E+25;", 1e25],
    ] as const) {
      expect(parsePhpSerialized(text), text).toBe(value);
    }
    const started = performance.now();
    expect(() => parsePhpSerialized(`d:${"0".repeat(100_000)}x;`)).toThrow(PhpSerializeError);
    // The former token regex was quadratic in such a run (seconds at this length).
    expect(performance.now() - started).toBeLessThan(250);
  });

  test("throws PhpSerializeError on malformed input", () => {
    const bad = [
      "",
      "a:1:{",
      'a:1:{s:8:"customer";b:1;',
      's:8:"custome',
      's:8:"custom";',
      's:7:"customer";',
      's:9:"customer";',
      's:-1:"";',
      's:x:"";',
      'a:1:{s:8:"customer";b:1;}}',
      "i:1;i:2;",
      "b:1; ",
      "i:1.5;",
      "i:;",
      "d:1e;",
      "N",
      "x:1;",
      "a:1:{a:0:{}b:1;}",
      "a:1:{N;b:1;}",
      `${"a:1:{i:0;".repeat(100)}N;${"}".repeat(100)}`,
    ];
    for (const text of bad) expect(() => parsePhpSerialized(text), text).toThrow(PhpSerializeError);
  });

  test("rejects a string that is not valid UTF-8 once its bytes are cut", () => {
    // 2 bytes of the 3-byte "日" leave a broken character.
    expect(() => parsePhpSerialized('s:2:"日";')).toThrow(PhpSerializeError);
  });
});

describe("serializeCapabilities", () => {
  test("writes what WordPress writes", () => {
    expect(serializeCapabilities(["customer"])).toBe('a:1:{s:8:"customer";b:1;}');
    expect(serializeCapabilities(["administrator"])).toBe('a:1:{s:13:"administrator";b:1;}');
    expect(serializeCapabilities([])).toBe("a:0:{}");
  });

  test("counts bytes and round-trips", () => {
    const roles = ["customer", "rédacteur", "日本", "shop_manager"];
    const text = serializeCapabilities(roles);
    expect(text).toContain('s:10:"rédacteur";');
    expect(text).toContain('s:6:"日本";');
    expect(rolesFromCapabilities(text)).toEqual(roles);
  });

  test("writes each role once", () => {
    expect(serializeCapabilities(["customer", "customer"])).toBe('a:1:{s:8:"customer";b:1;}');
  });
});
