// The live OpenAPI document, linted by Spectral CLI with the committed ruleset (.spectral.yaml,
// `spectral:oas`): no errors and no warnings (hints and infos are listed, not failed on).
// Spectral runs from node_modules under Node and reads only the two local files: the document has
// no external $ref, so nothing is fetched.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonOf } from "../helpers/responses";
import { createTestApp } from "../helpers/test-app";

const root = join(import.meta.dir, "..", "..");
const spectral = join(root, "node_modules", ".bin", "spectral");
const ruleset = join(root, ".spectral.yaml");

/** Spectral's severities, as its JSON report numbers them. */
const SEVERITY = ["error", "warn", "info", "hint"] as const;

interface SpectralResult {
  code: string;
  message: string;
  path: Array<string | number>;
  severity: 0 | 1 | 2 | 3;
  source?: string;
}

let doc: object;
let dir: string;

beforeAll(async () => {
  const t = await createTestApp();
  // Only handed to Spectral as it came.
  doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as object;
  await t.close();
  dir = mkdtempSync(join(tmpdir(), "bookdist-spectral-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `spectral lint` once over the named documents; its findings, one line each, by document. */
async function lint(documents: Record<string, unknown>): Promise<Record<string, string[]>> {
  const files: string[] = [];
  for (const [name, document] of Object.entries(documents)) {
    const file = join(dir, `${name}.json`);
    await Bun.write(file, JSON.stringify(document, null, 2));
    files.push(file);
  }
  const child = Bun.spawn(
    [
      spectral,
      "lint",
      "--ruleset",
      ruleset,
      "--format",
      "json",
      "--fail-severity",
      "warn",
      "--quiet",
      ...files,
    ],
    { cwd: dir, stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  let results: SpectralResult[];
  try {
    results = JSON.parse(stdout);
  } catch {
    throw new Error(`spectral printed no report (exit ${code}):\n${stdout}\n${stderr}`);
  }
  const byDocument: Record<string, string[]> = Object.fromEntries(Object.keys(documents).map((n) => [n, []]));
  for (const r of results) {
    const name = Object.keys(documents).find((n) => r.source === join(dir, `${n}.json`));
    if (!name) throw new Error(`a finding for a document that was not linted: ${JSON.stringify(r)}`);
    byDocument[name]!.push(`${SEVERITY[r.severity]} ${r.code} at #/${r.path.join("/")}: ${r.message}`);
  }
  return byDocument;
}

describe("OpenAPI lint (Spectral, .spectral.yaml)", () => {
  test("the ruleset is spectral:oas, and the live document has no errors and no warnings", async () => {
    expect(await Bun.file(ruleset).text()).toContain('extends: ["spectral:oas"]');
    // A small document with faults spectral:oas exists to catch, linted in the same run: it proves
    // the ruleset was loaded and that findings reach this test.
    const broken = {
      openapi: "3.1.0",
      info: { title: "broken", version: "1", description: "Faults on purpose.", contact: { name: "x" } },
      servers: [{ url: "/" }],
      tags: [{ name: "Known", description: "A declared tag" }],
      paths: {
        "/thing": {
          get: {
            summary: "No operationId, an undeclared tag",
            description: "Faulty.",
            tags: ["NoSuchTag"],
            responses: { "200": { description: "OK" } },
          },
        },
      },
    };
    const report = await lint({ live: doc, broken });

    const rules = new Set(report.broken!.map((line) => line.split(" ")[1]));
    expect(rules).toContain("operation-operationId");
    expect(rules).toContain("operation-tag-defined");

    const failing = report.live!.filter((line) => line.startsWith("error ") || line.startsWith("warn "));
    expect(failing).toEqual([]);
  }, 120_000); // ~10 s on an idle machine; Spectral's example checks are CPU-bound
});
