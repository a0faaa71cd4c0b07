// The live OpenAPI document, linted by Redocly CLI with the committed ruleset (redocly.yaml):
// no errors, no warnings. Examples are then put together the way Swagger UI does it (from the
// schemas' property examples) and linted again, so Redocly checks each one against its schema.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonOf } from "../helpers/responses";
import { createTestApp } from "../helpers/test-app";

const root = join(import.meta.dir, "..", "..");
const redocly = join(root, "node_modules", ".bin", "redocly");
const ruleset = join(root, "redocly.yaml");

interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: Array<{ pointer: string }>;
}

let doc: Record<string, any>;
let dir: string;

beforeAll(async () => {
  const t = await createTestApp();
  doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as typeof doc;
  await t.close();
  dir = mkdtempSync(join(tmpdir(), "bookdist-openapi-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `redocly lint` on `document` and returns its problems and totals. */
async function lint(document: unknown, name: string) {
  const file = join(dir, `${name}.json`);
  await Bun.write(file, JSON.stringify(document, null, 2));
  const child = Bun.spawn([redocly, "lint", "--config", ruleset, "--format", "json", file], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  let report: { totals: { errors: number; warnings: number }; problems: LintProblem[] };
  try {
    report = JSON.parse(stdout);
  } catch {
    throw new Error(`redocly printed no report (exit ${code}):\n${stdout}\n${stderr}`);
  }
  const problems = report.problems.map(
    (p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(", ")}: ${p.message}`,
  );
  return { code, totals: report.totals, problems };
}

describe("OpenAPI lint (Redocly, redocly.yaml)", () => {
  test("the live document has no errors and no warnings", async () => {
    const result = await lint(doc, "live");
    expect(result.problems).toEqual([]);
    expect(result.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(result.code).toBe(0);
  });

  test("the ruleset catches what it is there for", async () => {
    // A document with the faults the ruleset exists to catch: an example that breaks its schema,
    // a scalar without an example, an operation without security, a 4xx that is not a problem.
    const broken = structuredClone(doc);
    const op = broken.paths["/book/{id}"].get;
    delete op.security;
    op.responses["404"].content = { "application/json": op.responses["404"].content[PROBLEM] };
    broken.components.schemas.Book.properties.title.example = 42;
    delete broken.components.schemas.Book.properties.language.example;
    const result = await lint(broken, "broken");
    const rules = new Set(result.problems.map((p) => p.split(" ")[1]));
    for (const rule of [
      "rule/operation-security-declared",
      "operation-4xx-problem-details-rfc7807",
      "no-invalid-schema-examples",
      "scalar-property-missing-example",
    ])
      expect(rules).toContain(rule);
    expect(result.code).not.toBe(0);
  });

  test("every rule the ruleset turns off says why", async () => {
    const lines = (await Bun.file(ruleset).text()).split("\n");
    expect(lines).toContain("  - recommended");
    const off = lines.flatMap((line, i) => (/^\s+[\w/-]+:\s*off\b/.test(line) ? [i] : []));
    expect(off.length).toBeGreaterThan(0);
    for (const i of off) expect(lines[i - 1]!.trim(), lines[i]).toStartWith("#");
  });

  test("every operation has an operationId, summary, description, one declared tag and its security", () => {
    const tags = new Set((doc.tags as Array<{ name: string }>).map((tag) => tag.name));
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        expect(op.operationId, name).toMatch(/^[a-z][A-Za-z0-9]*$/);
        expect(op.summary, name).toBeString();
        expect(op.description, name).toContain("Access: ");
        expect(op.tags, name).toHaveLength(1);
        expect(tags, name).toContain(op.tags[0]);
        expect(Array.isArray(op.security), name).toBe(true);
        // Every documented error has an example body for each of its codes.
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          if (Number(status) < 400) continue;
          const media = response.content?.[PROBLEM];
          // GET /health answers 503 with its own report of the failing part, not a problem.
          if (Number(status) >= 500 && !media) continue;
          expect(media, `${name} ${status}`).toBeDefined();
          const codes = String(response.description).match(/[A-Z_]{4,}(?=:)/g) ?? [];
          expect(codes.length, `${name} ${status}`).toBeGreaterThan(0);
          for (const code of codes) {
            expect(media.examples?.[code]?.value, `${name} ${status} ${code}`).toMatchObject({
              code,
              status: Number(status),
            });
          }
        }
      }
    }
  });

  test("no body is a record that may be null (see orNull in src/http/openapi.ts)", () => {
    // `.nullable()` on a named schema turns the component itself nullable, and with it every
    // body that names it: the generated SDK would then type a created book as `Book | null`.
    const nullable = (ref: string) => {
      const schema = doc.components.schemas[ref.split("/").pop()!];
      return [schema?.type].flat().includes("null");
    };
    const offenders: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const media = [
          ...Object.values(op.requestBody?.content ?? {}),
          ...Object.values(op.responses as Record<string, any>).flatMap((r) =>
            Object.values(r.content ?? {}),
          ),
        ] as Array<{ schema?: { $ref?: string; items?: { $ref?: string } } }>;
        for (const { schema } of media) {
          const ref = schema?.$ref ?? schema?.items?.$ref;
          if (ref && nullable(ref)) offenders.push(`${method.toUpperCase()} ${path}: ${ref}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });

  test("every parameter and JSON body has an example, and each example fits its schema", async () => {
    const withExamples = structuredClone(doc);
    const missing: string[] = [];
    let filled = 0;
    for (const [path, methods] of Object.entries(withExamples.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        const name = `${method.toUpperCase()} ${path}`;
        for (const parameter of op.parameters ?? []) {
          const where = `${name} parameter ${parameter.name}`;
          if (parameter.example === undefined && parameter.examples === undefined)
            exampleOf(withExamples, parameter.schema, where, missing);
        }
        const bodies: Array<[string, any]> = Object.entries(op.requestBody?.content ?? {}).map(
          ([type, media]) => [`${name} request ${type}`, media],
        );
        for (const [status, response] of Object.entries(op.responses as Record<string, any>))
          for (const [type, media] of Object.entries(response.content ?? {}))
            bodies.push([`${name} ${status} ${type}`, media]);
        for (const [where, media] of bodies) {
          if (!where.includes("json") || media.example !== undefined || media.examples !== undefined)
            continue;
          // Put together as Swagger UI shows it; Redocly then validates it against the schema.
          media.example = exampleOf(withExamples, media.schema, where, missing);
          filled++;
        }
      }
    }
    expect(missing).toEqual([]);
    expect(filled).toBeGreaterThan(40);
    const result = await lint(withExamples, "with-examples");
    expect(result.problems).toEqual([]);
  });
});

const PROBLEM = "application/problem+json";

/**
 * The example a schema shows, built from the examples of its parts as Swagger UI builds it;
 * a part that has none (and no enum, const or default to show) is added to `missing`.
 */
function exampleOf(document: any, schema: any, where: string, missing: string[]): unknown {
  if (!schema) {
    missing.push(`${where}: no schema`);
    return undefined;
  }
  if (schema.$ref) {
    const target = String(schema.$ref)
      .replace(/^#\//, "")
      .split("/")
      .reduce((node: any, key) => node?.[key], document);
    return exampleOf(document, target, `${where} → ${schema.$ref}`, missing);
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const choices = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(choices)) {
    const shown = choices.find((choice: any) => choice.type !== "null") ?? choices[0];
    return exampleOf(document, shown, where, missing);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((part: any) => exampleOf(document, part, where, missing)));
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  if (type === "object" || schema.properties) {
    return Object.fromEntries(
      Object.entries(schema.properties ?? {}).map(([key, property]) => [
        key,
        exampleOf(document, property, `${where}.${key}`, missing),
      ]),
    );
  }
  if (type === "array") return [exampleOf(document, schema.items, `${where}[]`, missing)];
  if (type === "null") return null;
  missing.push(where);
  return undefined;
}
