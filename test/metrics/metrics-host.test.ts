// METRICS_HOST on every interface (README "Metrics"): the real server says so at start, in a
// warning line naming the variable; on a single interface it says nothing of the kind.
import { afterEach, describe, expect, test } from "bun:test";
import { type RealServer, startRealServer } from "../helpers/real-server";

interface LogLine {
  level: string;
  msg: string;
  host?: string;
  url?: string;
}

let server: RealServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** The server's JSON lines once the metrics listener said where it listens. */
async function startWithMetricsOn(host: string): Promise<LogLine[]> {
  // Port 0: the kernel picks one; the listener is stopped with the server right after.
  server = await startRealServer({ env: { METRICS_PORT: "0", METRICS_HOST: host } });
  const lines = server
    .output()
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
  expect(lines.some((line) => line.msg === "metrics listening")).toBe(true);
  return lines;
}

const warningsAbout = (lines: LogLine[]) =>
  lines.filter((line) => line.level === "warn" && line.msg.includes("METRICS_HOST"));

describe("METRICS_HOST", () => {
  for (const host of ["0.0.0.0", "::", "0"]) {
    test(`${host}: one warning line at start`, async () => {
      const warnings = warningsAbout(await startWithMetricsOn(host));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toContain("every interface");
      expect(warnings[0]!.host).toBe(host);
    });
  }

  test("127.0.0.1 (the default): no warning", async () => {
    expect(warningsAbout(await startWithMetricsOn("127.0.0.1"))).toEqual([]);
  });
});
