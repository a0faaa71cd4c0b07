// The README's route table, generated from the live OpenAPI document: one row per operation with
// its method, path, operationId, access level (`x-access-level`, which defineRoute writes) and
// the folder of src/routes/ that serves it (which the document does not say: read from the
// routers themselves). test/contract/route-table.test.ts keeps the README equal to it.
//
// Run: bun run docs:routes   (rewrites the table between the markers in README.md)
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTestApp } from "./test-app";

const projectRoot = join(import.meta.dir, "..", "..");
export const README_PATH = join(projectRoot, "README.md");
export const TABLE_START = "<!-- route-table:start (bun run docs:routes) -->";
export const TABLE_END = "<!-- route-table:end -->";

const routesDir = join(projectRoot, "src", "routes");

interface Operation {
  operationId?: string;
  "x-access-level"?: string;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** The live document, as GET /v3/api-docs serves it from an in-process app. */
export async function liveDocument(): Promise<OpenApiDocument> {
  const t = await createTestApp();
  try {
    return (await (await t.call("GET", "/v3/api-docs")).json()) as OpenApiDocument;
  } finally {
    await t.close();
  }
}

/** operationIds a module's exports serve: a router's registered routes, or route definitions. */
function operationIdsExportedBy(exports: Record<string, unknown>): string[] {
  const ids: string[] = [];
  for (const value of Object.values(exports)) {
    if (typeof value !== "object" || value === null) continue;
    if ("openAPIRegistry" in value) {
      const { definitions } = (value as { openAPIRegistry: { definitions: { route?: Operation }[] } })
        .openAPIRegistry;
      for (const { route } of definitions) if (route?.operationId) ids.push(route.operationId);
    } else if ("operationId" in value && typeof value.operationId === "string") {
      ids.push(value.operationId);
    }
  }
  return ids;
}

/**
 * The module of src/routes/ serving each operationId: a folder (`books/`) by the routers its
 * index.ts exports, a lone file (`docs.ts`, whose routes the app registers itself) by the route
 * definitions it exports. Keyed on operationIds, so route export names do not matter.
 */
export async function routeModules(): Promise<Map<string, string>> {
  const moduleOf = new Map<string, string>();
  for (const entry of readdirSync(routesDir, { withFileTypes: true })) {
    let name: string;
    let file: string;
    if (entry.isDirectory()) {
      name = `${entry.name}/`;
      file = join(routesDir, entry.name, "index.ts");
    } else if (entry.name.endsWith(".ts") && entry.name !== "index.ts") {
      name = entry.name;
      file = join(routesDir, entry.name);
    } else continue;
    for (const id of operationIdsExportedBy(await import(file))) {
      const other = moduleOf.get(id);
      if (other !== undefined && other !== name) throw new Error(`${id} is served by ${other} and ${name}`);
      moduleOf.set(id, name);
    }
  }
  return moduleOf;
}

const METHOD_ORDER = ["get", "head", "post", "put", "patch", "delete", "options", "trace"];

/**
 * Segment by segment, so a resource's paths stay together (`/activation/count` before
 * `/activation-qr-code`); `{` sorts after letters, so fixed segments come before parameters.
 */
function byPath(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! < right[i]! ? -1 : 1;
  }
  return left.length - right.length;
}

/** The markdown table: by path, then method (GET, POST, PUT, DELETE), so rows move only when routes do. */
export function routeTable(document: OpenApiDocument, moduleOf: ReadonlyMap<string, string>): string {
  const rows: { path: string; method: string; line: string }[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      const { operationId, "x-access-level": level } = operation;
      if (operationId === undefined) throw new Error(`${where} has no operationId`);
      if (level === undefined) throw new Error(`${where} has no x-access-level`);
      const module = moduleOf.get(operationId);
      if (module === undefined)
        throw new Error(`${where} (${operationId}) is served by no module of src/routes`);
      rows.push({
        path,
        method,
        line: `| ${method.toUpperCase()} | \`${path}\` | \`${operationId}\` | ${level} | \`${module}\` |`,
      });
    }
  }
  rows.sort(
    (a, b) => byPath(a.path, b.path) || METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method),
  );
  return [
    "| method | path | operationId | level | module (src/routes/) |",
    "|---|---|---|---|---|",
    ...rows.map((row) => row.line),
  ].join("\n");
}

/** The table the README holds between its markers. */
export function tableInReadme(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md has no ${TABLE_START} … ${TABLE_END} markers`);
  return readme.slice(start + TABLE_START.length, end).trim();
}

/** The README with `table` between its markers. */
export function withTable(readme: string, table: string): string {
  tableInReadme(readme); // the markers are there
  const start = readme.indexOf(TABLE_START) + TABLE_START.length;
  return `${readme.slice(0, start)}\n\n${table}\n\n${readme.slice(readme.indexOf(TABLE_END))}`;
}

if (import.meta.main) {
  const table = routeTable(await liveDocument(), await routeModules());
  const readme = readFileSync(README_PATH, "utf8");
  const updated = withTable(readme, table);
  writeFileSync(README_PATH, updated);
  console.log(
    updated === readme
      ? "README.md: the route table is current"
      : `README.md: route table rewritten (${table.split("\n").length - 2} operations)`,
  );
}
