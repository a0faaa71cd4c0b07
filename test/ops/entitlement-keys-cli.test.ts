// `bun run admin keys rotate|list` (README "Offline entitlements"), run as an operator types it
// against a test database: the first key signs at once, a rotated one is published at once and
// signs after ENTITLEMENT_KEY_OVERLAP; the server signs with the key the CLI sealed (same
// JWT_SECRET); no line holds a private key. SQLite, and Postgres with TEST_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from "jose";
import { parseConfig } from "../../src/config";
import { fixedClock } from "../../src/lib/clock";
import { issueEntitlements, publishedKeys } from "../../src/services/entitlements";
import { runAdminCli } from "../helpers/admin-cli";
import { createTestDatabase, type TestDatabase } from "../helpers/databases";
import { auditLogText, registerSecret } from "../helpers/log-audit";

const SECRET = "entitlement-cli-secret-0123456789-abcdef";
registerSecret(SECRET);
const HOUR = 3_600_000;

describe("bun run admin keys", () => {
  let database: TestDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), "bookdist-keys-cli-"));
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      JWT_SECRET: SECRET,
      ENTITLEMENT_KEY_OVERLAP: "2h",
    };
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function admin(...args: string[]) {
    const result = await runAdminCli(args, env);
    auditLogText(`${result.stdout}\n${result.stderr}\n`, `bun run admin ${args.join(" ")}`);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(/"d"\s*:|MC4CAQAwBQYDK2VwBCIEI/);
    return result;
  }
  const lines = (stdout: string) => stdout.trim().split("\n").slice(1);

  test("list, rotate, rotate, list; the server signs with the CLI's first key and publishes both", async () => {
    const empty = await admin("keys", "list");
    expect(empty.exitCode, empty.stderr).toBe(0);
    expect(lines(empty.stdout)).toEqual(["no entitlement keys yet (the first is made when one is needed)"]);

    const before = Date.now();
    const first = await admin("keys", "rotate");
    expect(first.exitCode, first.stderr).toBe(0);
    expect(lines(first.stdout)).toEqual([
      expect.stringMatching(/^published key 1 {2}[\w-]{43} {2}signing {2}created /),
    ]);

    const second = await admin("keys", "rotate");
    expect(second.exitCode, second.stderr).toBe(0);
    const [line] = lines(second.stdout);
    const match = /^published key 2 {2}([\w-]{43}) {2}pending {2}created (\S+) {2}signs from (\S+)$/.exec(
      line!,
    );
    expect(match, line).not.toBeNull();
    const created = Date.parse(match![2]!);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(match![3]!) - created).toBe(2 * HOUR);

    const listed = await admin("keys", "list");
    const states = lines(listed.stdout).map((entry) => entry.split("  ").slice(0, 3));
    const kid1 = states[0]![1]!;
    expect(states).toEqual([
      ["key 1", kid1, "signing"],
      ["key 2", match![1]!, "pending"],
    ]);

    // The server of this database and secret: signs with key 1 now, publishes both, and key 2
    // signs once the overlap has passed (the clock set past it).
    const parsed = parseConfig({ ...env, LOG_LEVEL: "silent" });
    if (!parsed.ok) throw new Error(parsed.problems.join("\n"));
    const clock = fixedClock(new Date(created + HOUR));
    const deps = { db: database.handle.db, config: parsed.config, clock, jwtSecret: SECRET };
    const { keys } = await publishedKeys(deps);
    expect(keys.map((key) => key.kid)).toEqual([match![1]!, kid1]);
    const now = await issueEntitlements(deps, { userUuid: "3f1e0000-0000-4000-8000-000000000001" });
    expect(decodeProtectedHeader(now.token).kid).toBe(kid1);
    await jwtVerify(now.token, createLocalJWKSet({ keys: keys as JWK[] }), { currentDate: clock.now() });
    clock.set(new Date(created + 2 * HOUR));
    const later = await issueEntitlements(deps, { userUuid: "3f1e0000-0000-4000-8000-000000000001" });
    expect(decodeProtectedHeader(later.token).kid).toBe(match![1]!);
    await jwtVerify(later.token, createLocalJWKSet({ keys: keys as JWK[] }), { currentDate: clock.now() });
  }, 60_000);

  test("an unknown keys command is the usage, exit 2", async () => {
    const result = await admin("keys", "delete");
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("keys rotate|list");
  }, 30_000);
});
