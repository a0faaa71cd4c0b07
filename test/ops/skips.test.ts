// Every skipped test says why in one line: tests skip only through `.if(…)` fed by requires(),
// requireTool() or onlyIn() (test/helpers/requires.ts), which print the reason. A bare
// `.skip`, `.skipIf` or `.todo` would skip silently, so none may be in test/.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const testDir = join(import.meta.dir, "..");
const SILENT_SKIP = /\b(?:describe|test|it)\s*\.\s*(?:skip|skipIf|todo|todoIf)\s*\(/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : files(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

describe("skips", () => {
  test("no test skips without saying why", () => {
    const silent = files(testDir).flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, index) => {
          // This file names the patterns it forbids.
          if (file === import.meta.path) return [];
          return SILENT_SKIP.test(line) ? [`${relative(testDir, file)}:${index + 1}: ${line.trim()}`] : [];
        }),
    );
    expect(silent).toEqual([]);
  });
});
