// The README's route table is the live document's: a route added, renamed, moved to another
// folder or given another level without `bun run docs:routes` fails here.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  liveDocument,
  README_PATH,
  routeModules,
  routeTable,
  TABLE_END,
  TABLE_START,
  tableInReadme,
  withTable,
} from "../helpers/route-table";

describe("the README's route table", () => {
  test("is the one the live OpenAPI document gives", async () => {
    const document = await liveDocument();
    const expected = routeTable(document, await routeModules());
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods)).length;
    expect(expected.split("\n").length - 2).toBe(operations);
    expect(
      tableInReadme(readFileSync(README_PATH, "utf8")),
      "README.md's route table differs from the live OpenAPI document: run `bun run docs:routes` and commit README.md",
    ).toBe(expected);
  });

  test("is written between its markers, the rest of the README untouched", () => {
    const readme = `# Title\n\n${TABLE_START}\nold\n${TABLE_END}\n\n## Next\n`;
    const written = withTable(readme, "| new |");
    expect(written).toBe(`# Title\n\n${TABLE_START}\n\n| new |\n\n${TABLE_END}\n\n## Next\n`);
    expect(tableInReadme(written)).toBe("| new |");
    expect(withTable(written, "| new |")).toBe(written);
  });
});
