// Every skipped test says why on its own line: tests skip only through `.if(…)` fed by requires(),
// requireTool() or onlyIn() (test/helpers/requires.ts), and the preload has `.if` name the reason
// in each skipped test's name, so a run prints as many reasons as it counts skips. A bare
// `.skip`, `.skipIf` or `.todo` would skip silently, so none may be in test/; an `.if` skip in a
// file given no reason fails.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
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

describe("a skip's reason, in a run of its own", () => {
  const requiresModule = join(testDir, "helpers", "requires.ts");
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "bookdist-skips-"));
    writeFileSync(
      join(dir, "needs.test.ts"),
      `import { describe, expect, test } from "bun:test";
import { onlyIn, requires } from ${JSON.stringify(requiresModule)};
describe.if(requires(false, "the moon not found"))("a block", () => {
  test("one", () => {});
  describe("inner", () => test("two", () => {}));
});
test.if(onlyIn(false, "a variant not run"))("three", () => {});
test.if(true)("runs", () => expect(1).toBe(1));
`,
    );
    writeFileSync(
      join(dir, "bare.test.ts"),
      `import { test } from "bun:test";
test.if(false)("silent", () => {});
`,
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `bun test` of one file there, with the suite's preload and `CI` as given. */
  async function run(file: string, ci: boolean): Promise<{ output: string; code: number }> {
    // Neither this run's CI nor test:fast's flag: the child's answers depend on `ci` alone.
    const { CI: _ci, TEST_FAST: _fast, ...inherited } = process.env;
    const env = ci ? { ...inherited, CI: "true" } : inherited;
    const child = Bun.spawn(
      ["bun", "test", "--preload", join(testDir, "helpers", "preload.ts"), `./${file}`],
      {
        cwd: dir,
        env,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    return { output: out + err, code };
  }

  test("each skipped test names the reasons its file was given so far, so reasons and skips count the same", async () => {
    const { output, code } = await run("needs.test.ts", false);
    expect(code).toBe(0);
    const skipped = output.split("\n").filter((line) => line.startsWith("(skip) "));
    expect(skipped).toEqual([
      "(skip) a block [skip: the moon not found] > one",
      "(skip) a block [skip: the moon not found] > inner > two",
      "(skip) three [skip: the moon not found; a variant not run]",
    ]);
    expect(output).toMatch(/^ *3 skip$/m);
  });

  test("under CI a missing need is a failure, and its tests still name it", async () => {
    const { output, code } = await run("needs.test.ts", true);
    expect(code).toBe(1);
    expect(output).toContain("(fail) requires: the moon not found");
    expect(output).toContain("(skip) three [skip: the moon not found; a variant not run]");
  });

  test("an .if skip in a file given no reason fails", async () => {
    const { output, code } = await run("bare.test.ts", false);
    expect(code).toBe(1);
    expect(output).toContain("(fail) skipped without a reason: silent");
  });
});
