// API.md §5 and the OpenAPI document list the same operations, each with the same access level.
// The document itself (GET /v3/api-docs) and Swagger UI (GET /swagger-ui) are rows of §5 and so
// operations too; their aliases (/openapi.json, /swagger-ui.html, /swagger-ui/index.html) are not.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { requires } from "../helpers/requires";
import { jsonOf } from "../helpers/responses";
import { createTestApp, type TestApp } from "../helpers/test-app";

// The spec sits in the shared folder beside the project folder, which a clone does not have.
const API_MD = join(import.meta.dir, "..", "..", "..", "shared", "API.md");
const hasApiMd = requires(
  existsSync(API_MD),
  "../shared/API.md not found (the spec beside the project folder)",
);
const ALIASES = ["GET /openapi.json", "GET /swagger-ui.html", "GET /swagger-ui/index.html"];
const PRINT_RUNS = "Print runs and device updates";
const SHOP_ORDERS = "Shop orders";
const AUDIT_LOG = "Audit log";
const BESIDE_THE_CONSOLE = "The API beside the console";
/**
 * §11's OPDS catalogs are prose, not a table: they name `GET /opds`, `/opds/v2`,
 * `/opds/search.xml` and `GET /opds/auth` and leave the feeds' and signed files' paths to the code
 * (parallel in /opds/... and /opds/v2/...). Every operation under /opds is read as listed there,
 * at the level its own test below pins.
 */
const OPDS_CATALOGS = "OPDS catalogs";
const OPDS_NAMED = ["GET /opds", "GET /opds/v2", "GET /opds/search.xml", "GET /opds/auth"];
/** The catalog's public operations: its authentication document and the signed file links. */
const OPDS_PUBLIC = [
  "GET /opds/auth",
  "GET /opds/download/{userUUID}/{id}",
  "GET /opds/cover/{userUUID}/{id}",
];
/**
 * Rows of §11 (readers' own apps) whose work order has not landed yet: each is pinned by a test
 * that fails once the document has it, so the entry goes when the operation comes.
 */
const NOT_YET_BUILT = new Set<string>([]);
/**
 * Where a later work order knowingly widens an API.md row: operation → the level the document
 * declares instead. Each entry is pinned by its own test, so no other drift can hide here.
 */
const WIDENED_BY_LATER_ISSUE: Record<string, string> = {
  // Device updates (issue 7): "public download of an APK by id is allowed only for the currently
  // active ones (others stay admin-only)", so that `/apk/active` can name an immutable URL that
  // devices fetch without credentials. API.md §5 still says admin.
  "GET /apk/{id}/download": "published",
};

interface Row {
  operation: string;
  level: string;
  section: string;
}

/**
 * The endpoint rows of API.md §5 (`| METHOD /path (alias …) | level | … |`, by subsection), of
 * §7, the shop's endpoints (section "Shop orders"; a level such as "public, signed" reads as its
 * first word), of §9, the audit log (section "Audit log"), and of §11, the readers' apps (by
 * subsection; "user (a session token; …)" reads as "user"). §11's offline entitlements list
 * theirs as bullets, "- `GET /path?query` (level, …)", where "(same access)" is the level of the
 * section's first operation (the token's).
 */
function endpointRows(markdown: string): Row[] {
  if (!markdown.includes("\n## 5. Endpoints")) throw new Error("API.md has no §5 Endpoints");
  const rows: Row[] = [];
  let chapter = "";
  let section = "";
  for (const line of markdown.split("\n")) {
    const heading = /^(#{2,3}) (.+)$/.exec(line);
    if (heading?.[1] === "##") {
      chapter = heading[2]!.trim();
      section = chapter.startsWith("7.")
        ? SHOP_ORDERS
        : chapter.startsWith("9.")
          ? AUDIT_LOG
          : chapter.startsWith("10.")
            ? BESIDE_THE_CONSOLE
            : "";
    } else if (heading) section = heading[2]!.trim();
    if (
      !chapter.startsWith("5.") &&
      !chapter.startsWith("7.") &&
      !chapter.startsWith("9.") &&
      !chapter.startsWith("10.") &&
      !chapter.startsWith("11.")
    )
      continue;
    // An escaped pipe (`?kind=bookapp\|launcher`) is a cell's text, not a cell's end.
    const row = /^\|\s*(GET|POST|PUT|DELETE|PATCH|HEAD)\s+(\/[^\s?]*)[^|]*\|\s*(\w+)[^|]*\|/.exec(
      line.replaceAll("\\|", "/"),
    );
    // §10's table also names operations of §5 that gain filters ("GET /activation | admin | gains …"):
    // the same operation, listed once.
    const known = row && rows.some((r) => r.operation === `${row[1]} ${row[2]}`);
    if (row && !(known && section === BESIDE_THE_CONSOLE))
      rows.push({ operation: `${row[1]} ${row[2]}`, level: row[3]!, section });
    const bullet = section.startsWith("Offline entitlements")
      ? /^-\s+`(GET|POST|PUT|DELETE|PATCH|HEAD)\s+(\/[^`?\s]*)[^`]*`\s+\((\w+)/.exec(line)
      : null;
    if (bullet) {
      const level = bullet[3] === "same" ? rows.find((r) => r.section === section)?.level : bullet[3];
      if (!level) throw new Error(`API.md: "${line}" has the same access as no operation before it`);
      rows.push({ operation: `${bullet[1]} ${bullet[2]}`, level, section });
    }
  }
  return rows;
}

describe.if(hasApiMd)("API.md §5 and the OpenAPI document", () => {
  let t: TestApp;
  let documented: Map<string, string>;
  let rows: Row[];
  let opdsSection: string;
  beforeAll(async () => {
    t = await createTestApp();
    const doc = (await jsonOf(await t.call("GET", "/v3/api-docs"))) as {
      paths: Record<string, Record<string, { "x-access-level": string }>>;
    };
    documented = new Map(
      Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(
          ([method, op]) => [`${method.toUpperCase()} ${path}`, op["x-access-level"]] as const,
        ),
      ),
    );
    const markdown = await Bun.file(API_MD).text();
    rows = endpointRows(markdown);
    opdsSection = markdown.split(`### ${OPDS_CATALOGS}`)[1]?.split("\n### ")[0] ?? "";
    if (opdsSection !== "") {
      for (const [operation, level] of documented) {
        if (operation.startsWith("GET /opds")) rows.push({ operation, level, section: OPDS_CATALOGS });
      }
    }
  });
  afterAll(() => t.close());

  test("API.md is read as expected", () => {
    expect(rows.length).toBeGreaterThan(50);
    expect(rows).toContainEqual({ operation: "GET /v3/api-docs", level: "public", section: "Service" });
    expect(rows).toContainEqual({
      operation: "GET /activation/ofuser/{userUUID}/count",
      level: "owner",
      section: "Activation",
    });
    expect(new Set(rows.map((row) => row.operation)).size).toBe(rows.length);
    expect(rows).toContainEqual({ operation: "POST /shop/webhook", level: "public", section: SHOP_ORDERS });
    expect(rows).toContainEqual({ operation: "GET /shop-product", level: "admin", section: SHOP_ORDERS });
    expect(rows).toContainEqual({ operation: "GET /audit-event/{id}", level: "admin", section: AUDIT_LOG });
  });

  test(`the ${OPDS_CATALOGS} of §11: the operations it names are documented, feeds for users, files and the auth document public`, () => {
    expect(opdsSection).not.toBe("");
    for (const operation of OPDS_NAMED) {
      expect(opdsSection).toContain(operation.slice(4));
      expect(documented.has(operation)).toBe(true);
    }
    const opds = rows.filter((row) => row.section === OPDS_CATALOGS);
    expect(opds.length).toBeGreaterThan(OPDS_NAMED.length);
    for (const row of opds)
      expect([row.operation, row.level]).toEqual([
        row.operation,
        OPDS_PUBLIC.includes(row.operation) ? "public" : "user",
      ]);
  });

  test("the document has no operation that API.md does not list", () => {
    const listed = new Set(rows.map((row) => row.operation));
    expect([...documented.keys()].filter((operation) => !listed.has(operation))).toEqual([]);
  });

  test("every operation of API.md (before the print runs) is documented, at its level", () => {
    const expected = rows.filter(
      (row) => !row.section.startsWith(PRINT_RUNS) && !NOT_YET_BUILT.has(row.operation),
    );
    const actual = expected.map((row) => {
      const level = documented.get(row.operation) ?? "(missing)";
      return { ...row, level: level === WIDENED_BY_LATER_ISSUE[row.operation] ? row.level : level };
    });
    expect(actual).toEqual(expected);
  });

  for (const [operation, level] of Object.entries(WIDENED_BY_LATER_ISSUE))
    test(`${operation} is declared at level ${level}, as the later issue asks`, () => {
      expect(rows.find((row) => row.operation === operation)).toBeDefined();
      expect(documented.get(operation)).toBe(level);
    });

  test(`every operation of "${PRINT_RUNS}" is documented, at its level`, () => {
    const expected = rows.filter((row) => row.section.startsWith(PRINT_RUNS));
    expect(expected.length).toBeGreaterThan(0);
    const actual = expected.map((row) => ({ ...row, level: documented.get(row.operation) ?? "(missing)" }));
    expect(actual).toEqual(expected);
  });

  test("the (method, path) set of the document is API.md's", () => {
    const built = rows.filter((row) => !NOT_YET_BUILT.has(row.operation));
    expect([...documented.keys()].sort()).toEqual(built.map((row) => row.operation).sort());
  });

  test("§11's device tokens are read, and the operations not built yet are rows of API.md the document lacks", () => {
    expect(rows).toContainEqual({
      operation: "POST /authentication/device-token",
      level: "user",
      section: "Device tokens (app passwords)",
    });
    // Reading progress's rows are read, and built at their level.
    for (const operation of ["GET /book/{id}/progress", "PUT /book/{id}/progress"]) {
      expect(rows).toContainEqual({
        operation,
        level: "entitled",
        section: "Reading progress (`sync` scope)",
      });
      expect(documented.get(operation)).toBe("entitled");
    }
    for (const operation of NOT_YET_BUILT) {
      expect(rows.map((row) => row.operation)).toContain(operation);
      expect(documented.has(operation)).toBe(false);
    }
  });

  test("the document and Swagger UI are operations; their aliases answer but are not", async () => {
    for (const operation of ["GET /v3/api-docs", "GET /swagger-ui"]) {
      expect(documented.get(operation)).toBe("public");
    }
    for (const operation of ALIASES) {
      expect(documented.has(operation)).toBe(false);
      expect((await t.call("GET", operation.split(" ")[1]!)).status).toBe(200);
    }
  });
});
