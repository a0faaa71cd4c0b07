// Tests that need something from outside the project (a program, a server, root, the spec beside
// it) ask here first, once per file, and pass the answer to `describe.if` / `test.if`. A fresh
// clone on a machine with only Node.js must pass, so a missing need skips those tests; under CI
// (CI set) it is a failure instead, so CI still proves every test.
//
// Every skipped test says why on its own line: the preload (preload.ts) has `.if` append the
// reasons its file was given here so far to the name of each test it skips, so Bun's own `(skip)`
// line reads `(skip) <name> [skip: <reason>]` and a run prints as many reasons as it counts skips.
// An `.if` that skips in a file given no reason registers a failing test instead.
import { describe, it, test } from "bun:test";

const inCi = Boolean(process.env.CI);
/**
 * `bun run test:fast` (package.json sets TEST_FAST=1): every test that needs something from
 * outside the project — Ceph, a browser, Java, any program or server asked for here — is left to
 * the full run, so the fast run is the in-process app and the servers it starts itself.
 */
const fastRun = process.env.TEST_FAST === "1";

/** The reasons each test file (`Bun.main` while it loads and runs) was given to skip. */
const reasonsByFile = new Map<string, string[]>();

function recordReason(reason: string): void {
  const reasons = reasonsByFile.get(Bun.main) ?? [];
  if (!reasons.includes(reason)) reasons.push(reason);
  reasonsByFile.set(Bun.main, reasons);
}

/**
 * Whether the tests needing something run: true when it is `available`. Otherwise each test it
 * skips gives the reason, or under CI a failing test does.
 */
export function requires(available: boolean, reason: string): boolean {
  if (fastRun)
    return onlyIn(false, "test:fast runs nothing that needs a program or server from outside the project");
  if (available) return true;
  recordReason(reason);
  if (inCi) {
    test(`requires: ${reason}`, () => {
      throw new Error(`${reason}: CI is set, so every test must run`);
    });
  }
  return false;
}

/**
 * Tests that start the real server (`bun src/index.ts`) as a process of their own: true but in
 * test:fast, which keeps to the in-process app and leaves them, with their reason, to the full run.
 */
export function startsRealServer(): boolean {
  return onlyIn(!fastRun, "test:fast keeps to the in-process app: tests of a real server are the full run's");
}

/** For the helpers that start a real server: in test:fast, a test that did not ask fails by name. */
export function refuseRealServerInFastRun(): void {
  if (fastRun) throw new Error("test:fast starts no real server: gate this test with startsRealServer()");
}

/** Programs on PATH, all from one Debian package: whether the tests needing them run. */
export function requireTool(names: string | string[], debianPackage: string): boolean {
  const missing = [names].flat().filter((name) => Bun.which(name) === null);
  return requires(missing.length === 0, `${missing.join(", ")} not found (Debian package ${debianPackage})`);
}

/**
 * Tests of one variant of the suite (SQLite or Postgres, a server given or not): true when this
 * run is that variant; otherwise each test it skips gives the reason. Never a failure under CI,
 * which runs every variant (.ci/run).
 */
export function onlyIn(variant: boolean, reason: string): boolean {
  if (!variant) recordReason(reason);
  return variant;
}

type Register = (name: string, ...rest: never[]) => unknown;
type Conditional = { if(condition: unknown): Register };

/**
 * Makes `.if` of Bun's `describe`, `test` and `it` name the reason of every test it skips (see
 * the top of this file). Bun lets these be replaced (test/ops/skips.test.ts fails by name if an
 * upgrade stops it).
 */
export function nameSkipReasons(): void {
  for (const registrar of new Set<Conditional>([describe, test, it])) {
    const original = registrar.if.bind(registrar);
    registrar.if = (condition: unknown) => {
      if (condition) return original(condition);
      const skip = original(false);
      return (name: string, ...rest: never[]) => {
        const reasons = reasonsByFile.get(Bun.main);
        if (reasons === undefined) {
          test(`skipped without a reason: ${name}`, () => {
            throw new Error(
              "a test skips only by an .if fed by requires(), requireTool() or onlyIn(), which give the reason",
            );
          });
        }
        return skip(`${name} [skip: ${reasons?.join("; ") ?? "no reason given"}]`, ...rest);
      };
    };
  }
}
