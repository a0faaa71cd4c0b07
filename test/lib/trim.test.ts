import { describe, expect, test } from "bun:test";
import { trimChars, trimEndChars } from "../../src/lib/trim";

describe("trimChars", () => {
  test("drops the given characters from both ends only", () => {
    expect(trimChars(" . a. b .", " .")).toBe("a. b");
    expect(trimChars("a", " .")).toBe("a");
    expect(trimChars(" . . ", " .")).toBe("");
    expect(trimChars("", " .")).toBe("");
  });

  test("a long run inside the string costs one pass", () => {
    const inner = " .".repeat(40_000);
    const started = performance.now();
    expect(trimChars(`x${inner}x`, " .")).toBe(`x${inner}x`);
    // Microseconds; the regex it replaces was quadratic in the run (seconds at this length).
    expect(performance.now() - started).toBeLessThan(250);
  });
});

describe("trimEndChars", () => {
  test("drops the given characters from the end only", () => {
    expect(trimEndChars("https://books.example//", "/")).toBe("https://books.example");
    expect(trimEndChars("//a", "/")).toBe("//a");
    expect(trimEndChars("///", "/")).toBe("");
  });

  test("a long run that does not reach the end costs one pass", () => {
    const value = `${"/".repeat(200_000)}x`;
    const started = performance.now();
    expect(trimEndChars(value, "/")).toBe(value);
    expect(performance.now() - started).toBeLessThan(250);
  });
});
