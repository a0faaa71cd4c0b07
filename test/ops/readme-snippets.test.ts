// README.md's Prometheus examples ("#### Metrics", its ```yaml blocks): Prometheus' own
// `promtool check config` takes each, and each agrees with METRICS_HOST — a target on 127.0.0.1
// (the default) scrapes from the instance's machine; a target elsewhere is said to need
// METRICS_HOST set on the instances.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv } from "../helpers/child-env";
import { requireTool } from "../helpers/requires";
import { projectRoot } from "../helpers/spawn-server";

/** The ```yaml blocks of the README's "#### Metrics" section. */
export function prometheusBlocks(readme: string): string[] {
  const section = readme.split(/^#### /m).find((part) => part.startsWith("Metrics\n"));
  if (section === undefined) throw new Error('README.md has no "#### Metrics" section');
  const scoped = section.split(/^#{2,3} /m)[0] as string;
  return [...scoped.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1] as string);
}

const hasPromtool = requireTool("promtool", "prometheus");
const readme = readFileSync(join(projectRoot, "README.md"), "utf8");

describe("the README's Prometheus examples", () => {
  test("scrape 127.0.0.1 (METRICS_HOST's default), or say that the instances set METRICS_HOST", () => {
    const blocks = prometheusBlocks(readme);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      const targets = [...block.matchAll(/"([^"]+):(\d+)"/g)].map((match) => match[1]);
      expect(targets.length).toBeGreaterThan(0);
      if (targets.some((host) => host !== "127.0.0.1")) expect(block).toContain("METRICS_HOST=");
    }
    expect(blocks.some((block) => block.includes('"127.0.0.1:9464"'))).toBe(true);
  });

  test.if(hasPromtool)("promtool check config accepts each", () => {
    const dir = mkdtempSync(join(tmpdir(), "bookdist-prometheus-"));
    try {
      for (const [index, block] of prometheusBlocks(readme).entries()) {
        const path = join(dir, `prometheus-${index}.yml`);
        writeFileSync(path, block);
        const check = Bun.spawnSync(["promtool", "check", "config", path], {
          env: childEnv(),
          stdout: "pipe",
          stderr: "pipe",
        });
        expect({
          block: index,
          exitCode: check.exitCode,
          output: `${check.stdout}${check.stderr}`,
        }).toMatchObject({
          block: index,
          exitCode: 0,
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
