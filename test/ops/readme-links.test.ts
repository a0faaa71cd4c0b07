// Every `#anchor` link of README.md names a heading of README.md, as GitHub makes its anchors
// (lower case, punctuation dropped, spaces as dashes, a repeated heading's anchor suffixed -1, -2):
// a heading renamed or moved cannot leave the table of contents, or a "see …", pointing nowhere.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { projectRoot } from "../helpers/spawn-server";

/** GitHub's anchor of a heading's text. */
export function githubAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a markdown text's headings, outside fenced blocks. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = githubAnchor(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every in-page link target, `[text](#anchor)`, outside fenced blocks. */
export function anchorLinks(markdown: string): string[] {
  const links: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    if (fenced) continue;
    for (const match of line.matchAll(/\]\(#([^)\s]+)\)/g)) links.push(match[1] as string);
  }
  return links;
}

describe("README.md's in-page links", () => {
  const readme = readFileSync(join(projectRoot, "README.md"), "utf8");

  test("every #anchor names a heading", () => {
    const anchors = headingAnchors(readme);
    const dangling = [...new Set(anchorLinks(readme))].filter((anchor) => !anchors.has(anchor));
    expect(dangling).toEqual([]);
  });

  test("the table of contents names every section and subsection down to ###", () => {
    const contents = readme.split(/^## /m).find((part) => part.startsWith("Contents\n")) ?? "";
    const listed = new Set(anchorLinks(contents));
    const sections = [...readme.matchAll(/^#{2,3} (.+)$/gm)]
      .map((match) => githubAnchor(match[1] as string))
      .filter((anchor) => anchor !== "contents");
    expect(sections.filter((anchor) => !listed.has(anchor))).toEqual([]);
  });

  test("the anchors follow GitHub's rule", () => {
    expect(githubAnchor("Users from a WordPress/WooCommerce shop")).toBe(
      "users-from-a-wordpresswoocommerce-shop",
    );
    expect(githubAnchor("Health, logs and metrics")).toBe("health-logs-and-metrics");
    expect(githubAnchor("Walk-through")).toBe("walk-through");
    expect(headingAnchors("# A\n## A\n```\n# not a heading\n```\n")).toEqual(new Set(["a", "a-1"]));
  });
});
