// The Dockerfile and compose.yaml, read as Docker would read them (there is no Docker engine here):
// a health check that follows PORT (run for real against a real server), SIGTERM as the stop
// signal, a non-root user owning DATA_DIR, and a compose stop grace longer than SHUTDOWN_GRACE.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { parseConfig } from "../../src/config";
import { childEnv } from "../helpers/child-env";
import { type RealServer, startRealServer } from "../helpers/real-server";
import { freePort, projectRoot } from "../helpers/spawn-server";

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [keyword = "", ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
    });
}

/** Docker's durations as compose writes them: 1m30s, 45s, 500ms. */
function composeDurationMs(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as "ms" | "s" | "m" | "h"];
  }
  return total;
}

const dockerfile = instructions(await Bun.file(join(projectRoot, "Dockerfile")).text());
const finalStage = dockerfile.slice(dockerfile.findLastIndex((i) => i.keyword === "FROM"));
const compose = Bun.YAML.parse(await Bun.file(join(projectRoot, "compose.yaml")).text()) as {
  services: Record<
    string,
    { environment?: Record<string, string>; stop_grace_period?: string; build?: unknown }
  >;
};

/** The HEALTHCHECK's command, in exec form. */
function healthCommand(): string[] {
  const check = finalStage.find((i) => i.keyword === "HEALTHCHECK");
  expect(check).toBeDefined();
  const json = /CMD\s+(\[.*\])\s*$/.exec(check!.args)?.[1];
  expect(json, "HEALTHCHECK CMD in exec form").toBeDefined();
  return JSON.parse(json!) as string[];
}

describe("the Dockerfile", () => {
  test("stops with SIGTERM, which starts the drain of SHUTDOWN_GRACE", () => {
    expect(finalStage.filter((i) => i.keyword === "STOPSIGNAL").map((i) => i.args)).toEqual(["SIGTERM"]);
  });

  test("runs as a non-root user who owns DATA_DIR", () => {
    const users = finalStage.filter((i) => i.keyword === "USER").map((i) => i.args);
    const user = users.at(-1);
    expect(user).toBeDefined();
    expect(["root", "0", "0:0"]).not.toContain(user!);
    const env = finalStage
      .filter((i) => i.keyword === "ENV")
      .map((i) => i.args)
      .join(" ");
    const dataDir = /DATA_DIR=(\S+)/.exec(env)?.[1];
    expect(dataDir).toBe("/data");
    const owned = finalStage.some(
      (i) => i.keyword === "RUN" && new RegExp(`chown ${user}(:${user})? ${dataDir}(\\s|$)`).test(i.args),
    );
    expect(owned, `a RUN chown ${user} ${dataDir}`).toBe(true);
    // The chown comes before USER (root may chown) and the VOLUME after it (a volume keeps the owner).
    const index = (keyword: string) => finalStage.findIndex((i) => i.keyword === keyword);
    expect(index("USER")).toBeLessThan(index("VOLUME"));
  });

  test("its health check names no fixed port: it reads PORT", () => {
    const command = healthCommand().join(" ");
    expect(command).toContain("process.env.PORT");
    expect(command).toContain("/health");
  });

  describe("its health check, run as Docker runs it", () => {
    let server: RealServer;
    beforeAll(async () => {
      server = await startRealServer();
    });
    afterAll(() => server.stop());

    async function runCheck(port: string): Promise<number> {
      const [program, ...args] = healthCommand();
      const child = Bun.spawn([program === "bun" ? process.execPath : program!, ...args], {
        env: childEnv({ PORT: port }),
        stdout: "ignore",
        stderr: "ignore",
      });
      return child.exited;
    }

    test("is healthy where the server listens, whatever PORT is", async () => {
      expect(await runCheck(new URL(server.url).port)).toBe(0);
    });

    test("is unhealthy when nothing answers on PORT", async () => {
      expect(await runCheck(String(freePort()))).toBe(1);
    });
  });
});

describe("compose.yaml", () => {
  test("gives bookdist a stop grace longer than its SHUTDOWN_GRACE", () => {
    const app = compose.services.bookdist;
    expect(app?.build).toBeDefined();
    const parsed = parseConfig({ SHUTDOWN_GRACE: app?.environment?.SHUTDOWN_GRACE });
    if (!parsed.ok) throw new Error(parsed.problems.join("; "));
    expect(app?.stop_grace_period).toBeDefined();
    expect(composeDurationMs(app!.stop_grace_period!)).toBeGreaterThan(parsed.config.shutdownGraceMs);
  });

  test("runs bookdist on the Postgres service beside it", () => {
    expect(compose.services.postgres).toBeDefined();
    expect(compose.services.bookdist?.environment?.DATABASE_URL).toMatch(
      /^postgres:\/\/[^@]+@postgres:5432\//,
    );
  });
});
