// No regular expression a request can reach backtracks (issue 24): every regex in src/ (literals,
// `new RegExp(...)`, strings handed to match/search) and every `pattern` of the OpenAPI document
// goes through recheck, a ReDoS checker that proves a regex linear or finds an attack string.
// A `vulnerable` verdict fails with its attack; so does `unknown` (a timeout or a construct recheck
// cannot analyse), since an unproven regex is not a safe one: the timeout is generous enough that
// only a regex worth rewriting reaches it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import type { Diagnostics } from "recheck";
import ts from "typescript";
import { jsonOf } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

// recheck's pure JavaScript backend (its Scala.js build on this thread): the same verdicts on
// every machine, with no native binary or `java` needed. Its `auto` default would run the
// optional recheck-<os>-<arch> binary where the platform has one.
process.env.RECHECK_BACKEND = "pure";
const { check } = await import("recheck");

/** Per regex; the whole src/ takes about 2 s with this backend. */
const CHECK_TIMEOUT_MS = 60_000;

const srcDir = join(import.meta.dir, "..", "..", "src");

interface FoundRegex {
  /** file:line, relative to src/, or the JSON pointer of a `pattern` in the document. */
  where: string;
  source: string;
  flags: string;
}

/**
 * `new RegExp(x)` with a computed `x` cannot be checked here; each such call site must say where
 * its every instance is checked instead.
 */
const COMPUTED_REGEXES: Record<string, string> = {
  "http/sort-and-page.ts":
    "the `sort` parameter's pattern of each list, checked as a pattern of the document",
};
/** What the sort patterns look like in the document, to tie the entry above to what is checked. */
const SORT_PATTERN = (source: string) =>
  source.startsWith("^(") && source.endsWith(")(,(asc|desc|ASC|DESC))?$");

/** String methods that turn a string argument into a RegExp. */
const REGEX_STRING_METHODS = new Set(["match", "matchAll", "search"]);

function sourceFiles(): string[] {
  return [...new Bun.Glob("**/*.{ts,tsx,js,mjs,cjs}").scanSync({ cwd: srcDir, absolute: true })].sort();
}

/** Every regex written in src/, found by TypeScript's parser (a regex literal is not a division). */
function regexesInSource(files: string[]): {
  found: FoundRegex[];
  computed: string[];
  syntaxErrors: string[];
} {
  const program = ts.createProgram(files, {
    noResolve: true,
    noLib: true,
    types: [],
    target: ts.ScriptTarget.ESNext,
    allowJs: true,
  });
  const found: FoundRegex[] = [];
  const computed: string[] = [];
  const syntaxErrors: string[] = [];
  for (const file of files) {
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile) throw new Error(`TypeScript did not read ${file}`);
    const name = relative(srcDir, file);
    for (const diagnostic of program.getSyntacticDiagnostics(sourceFile)) {
      syntaxErrors.push(`${name}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`);
    }
    const where = (node: ts.Node) =>
      `${name}:${sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1}`;
    const literalText = (node: ts.Node | undefined) =>
      node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined;
    const visit = (node: ts.Node) => {
      if (ts.isRegularExpressionLiteral(node)) {
        const slash = node.text.lastIndexOf("/");
        found.push({
          where: where(node),
          source: node.text.slice(1, slash),
          flags: node.text.slice(slash + 1),
        });
      } else if (
        (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === "RegExp"
      ) {
        const [pattern, flags] = node.arguments ?? [];
        const source = literalText(pattern);
        const flagText = flags === undefined ? "" : literalText(flags);
        // A regex literal handed on (`new RegExp(/x/, "g")`) is checked as the literal it is.
        const copiesLiteral = pattern !== undefined && ts.isRegularExpressionLiteral(pattern);
        if (source !== undefined && flagText !== undefined) {
          found.push({ where: where(node), source, flags: flagText });
        } else if (!copiesLiteral) {
          computed.push(where(node));
        }
      } else if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        REGEX_STRING_METHODS.has(node.expression.name.text)
      ) {
        const source = literalText(node.arguments[0]);
        if (source !== undefined) found.push({ where: where(node), source, flags: "" });
      }
      ts.forEachChild(node, visit);
    };
    visit(sourceFile);
  }
  return { found, computed, syntaxErrors };
}

/** Every `pattern` (and `patternProperties` key) in the document, with its JSON pointer. */
function patternsInDocument(document: unknown): FoundRegex[] {
  const found: FoundRegex[] = [];
  const walk = (value: unknown, pointer: string) => {
    if (value === null || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      const here = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      if (key === "pattern" && typeof child === "string") {
        // OpenAPI 3.1 patterns are ECMA-262 regexes, unanchored and without flags.
        found.push({ where: here, source: child, flags: "" });
      } else if (key === "patternProperties" && child !== null && typeof child === "object") {
        for (const property of Object.keys(child)) found.push({ where: here, source: property, flags: "" });
      }
      walk(child, here);
    }
  };
  walk(document, "#");
  return found;
}

interface Verdict {
  regex: FoundRegex;
  diagnostics: Diagnostics;
}

/** recheck's verdict on each distinct regex; the places sharing one come with it. */
async function checkAll(regexes: FoundRegex[]): Promise<Verdict[]> {
  const distinct = new Map<string, FoundRegex>();
  for (const regex of regexes) {
    const key = `/${regex.source}/${regex.flags}`;
    const seen = distinct.get(key);
    distinct.set(key, seen ? { ...seen, where: `${seen.where}, ${regex.where}` } : regex);
  }
  const verdicts: Verdict[] = [];
  for (const regex of distinct.values()) {
    verdicts.push({
      regex,
      diagnostics: await check(regex.source, regex.flags, { timeout: CHECK_TIMEOUT_MS }),
    });
  }
  return verdicts;
}

/** What a failure shows: where, the regex, and recheck's reason (an attack string or an error). */
function problems(verdicts: Verdict[]): string[] {
  return verdicts.flatMap(({ regex, diagnostics }) => {
    const name = `${regex.where}: /${regex.source}/${regex.flags}`;
    if (diagnostics.status === "vulnerable") {
      return [
        `${name} is vulnerable: ${diagnostics.complexity.summary}, attack ${diagnostics.attack.pattern}`,
      ];
    }
    if (diagnostics.status === "unknown") {
      const error = diagnostics.error;
      return [
        `${name} could not be proven safe: ${error.kind}${"message" in error ? ` (${error.message})` : ""}`,
      ];
    }
    return [];
  });
}

describe("regular expressions in src/", () => {
  const files = sourceFiles();
  const { found, computed, syntaxErrors } = regexesInSource(files);

  test("are all found: every source file parsed, and regex literals among them", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(syntaxErrors).toEqual([]);
    expect(found.length).toBeGreaterThan(0);
    // One from the bottom of src/ and one from a route: a walker that missed a folder would fail.
    expect(found.some((regex) => regex.where.startsWith("lib/"))).toBe(true);
    expect(found.some((regex) => regex.where.startsWith("routes/"))).toBe(true);
  });

  test("a computed `new RegExp(...)` only where its instances are checked elsewhere", () => {
    const unexplained = computed.filter(
      (where) => !Object.hasOwn(COMPUTED_REGEXES, where.split(":")[0] ?? ""),
    );
    expect(unexplained).toEqual([]);
  });

  test(
    `none of the ${found.length} is vulnerable to catastrophic backtracking`,
    async () => {
      const verdicts = await checkAll(found);
      expect(problems(verdicts)).toEqual([]);
      expect(verdicts.every(({ diagnostics }) => diagnostics.status === "safe")).toBe(true);
    },
    { timeout: 600_000 },
  );
});

describe("patterns in the OpenAPI document", () => {
  let t: TestApp;
  let patterns: FoundRegex[];
  beforeAll(async () => {
    t = await createTestApp();
    patterns = patternsInDocument(await jsonOf(await t.call("GET", "/v3/api-docs")));
  });
  afterAll(() => t.close());

  test("are found, the sort parameters' among them", () => {
    expect(patterns.length).toBeGreaterThan(0);
    expect(patterns.some((pattern) => SORT_PATTERN(pattern.source))).toBe(true);
  });

  test(
    "none is vulnerable to catastrophic backtracking",
    async () => {
      const verdicts = await checkAll(patterns);
      expect(problems(verdicts)).toEqual([]);
      expect(verdicts.every(({ diagnostics }) => diagnostics.status === "safe")).toBe(true);
    },
    { timeout: 600_000 },
  );
});
