// Tests that need something from outside the project (a program, a server, root, the spec beside
// it) ask here first, once per file, and pass the answer to `describe.if` / `test.if`. A fresh
// clone on a machine with only Node.js must pass, so a missing need skips those tests with a
// one-line reason; under CI (CI set) it is a failure instead, so CI still proves every test.
import { test } from "bun:test";

const inCi = Boolean(process.env.CI);

/**
 * Whether the tests needing something run: true when it is `available`. Otherwise prints
 * `skip: <reason>`, or under CI registers a failing test that gives the reason.
 */
export function requires(available: boolean, reason: string): boolean {
  if (available) return true;
  if (inCi) {
    test(`requires: ${reason}`, () => {
      throw new Error(`${reason}: CI is set, so every test must run`);
    });
  } else {
    console.log(`skip: ${reason}`);
  }
  return false;
}

/** Programs on PATH, all from one Debian package: whether the tests needing them run. */
export function requireTool(names: string | string[], debianPackage: string): boolean {
  const missing = [names].flat().filter((name) => Bun.which(name) === null);
  return requires(missing.length === 0, `${missing.join(", ")} not found (Debian package ${debianPackage})`);
}

/**
 * Tests of one variant of the suite (SQLite or Postgres, a server given or not): true when this
 * run is that variant; otherwise prints `skip: <reason>`. Never a failure under CI, which runs
 * every variant (.ci/run).
 */
export function onlyIn(variant: boolean, reason: string): boolean {
  if (!variant) console.log(`skip: ${reason}`);
  return variant;
}
