import { describe, expect, test } from "bun:test";
import {
  baseLogin,
  escapeHtml,
  firstFree,
  nicenameOf,
  sanitizeLogin,
  unescapeHtml,
} from "../../src/store/user-names";

describe("new customers' names", () => {
  test("logins keep only WordPress's characters, folded and collapsed", () => {
    expect(sanitizeLogin("Zoë O'Brien")).toBe("zoe obrien");
    expect(sanitizeLogin("Tom  &   Jerry")).toBe("tom jerry");
    expect(sanitizeLogin(`${"a".repeat(70)}`)).toHaveLength(60);
  });

  test("first.last when both names are given, else the e-mail's local part, else customer", () => {
    expect(baseLogin("x@example.com", "Ada", "Lovelace")).toBe("ada.lovelace");
    expect(baseLogin("jane.doe+books@example.com", "", "Doe")).toBe("jane.doebooks");
    expect(baseLogin("!!!@example.com", "?", "!")).toBe("customer");
    expect(baseLogin("..@example.com", "", "")).toBe("customer");
  });

  test("nicenames: dots and spaces become dashes, @ goes, ≤ 50", () => {
    expect(nicenameOf("jane.doe")).toBe("jane-doe");
    expect(nicenameOf("me@home here")).toBe("mehome-here");
    expect(nicenameOf("x".repeat(60))).toHaveLength(50);
  });

  test("taken names get -2, -3… within the length limit", () => {
    expect(firstFree("jane", new Set(), 60)).toBe("jane");
    expect(firstFree("jane", new Set(["jane", "jane-2"]), 60)).toBe("jane-3");
    expect(firstFree("x".repeat(50), new Set(["x".repeat(50)]), 50)).toBe(`${"x".repeat(48)}-2`);
  });

  test("names are stored with &, <, > escaped, and read back", () => {
    expect(escapeHtml("Tom & <Jerry>")).toBe("Tom &amp; &lt;Jerry&gt;");
    expect(unescapeHtml(escapeHtml("a&b<c>&amp;"))).toBe("a&b<c>&amp;");
  });
});
