import { describe, expect, test } from "bun:test";
import { PASSWORD_HASH_COST } from "../src/auth/passwords";
import { parseConfig } from "../src/config";
import { childEnv } from "./helpers/child-env";
import { startRealServer } from "./helpers/real-server";

describe("configuration", () => {
  test("defaults follow DESIGN.md", () => {
    const result = parseConfig({ DATA_DIR: "/srv/bookdist" });
    if (!result.ok) throw new Error(result.problems.join());
    const c = result.config;
    expect(c.port).toBe(8080);
    expect(c.host).toBe("0.0.0.0");
    expect(c.databaseUrl).toBe("sqlite:/srv/bookdist/bookdist.sqlite");
    expect(c.storeDriver).toBe("embedded");
    expect(c.storeTablePrefix).toBe("wp_");
    expect(c.sessionTtlMs).toBe(30 * 86_400_000);
    expect(c.sessionIdleTimeoutMs).toBe(14 * 86_400_000);
    expect(c.sessionCleanupCron).toBe("*/15 * * * *");
    expect(c.maxCoverBytes).toBe(10 * 1024 ** 2);
    expect(c.maxArchiveBytes).toBe(2 * 1024 ** 3);
    expect(c.maxApkBytes).toBe(512 * 1024 ** 2);
    expect(c.qrPayloadTemplate).toBe("{code}");
    expect(c.throttle).toBe(true);
    expect(c.jwtSecret).toBeUndefined();
    expect(c.shutdownGraceMs).toBe(30_000);
  });

  test("STORAGE: local by default; s3 needs S3_BUCKET and takes the S3_* variables of API.md §8", () => {
    const local = parseConfig({ DATA_DIR: "/srv/bookdist" });
    if (!local.ok) throw new Error(local.problems.join());
    expect(local.config.storage).toEqual({ driver: "local" });

    const missing = parseConfig({ DATA_DIR: "/srv/bookdist", STORAGE: "s3" });
    expect(missing).toEqual({ ok: false, problems: ["S3_BUCKET: is required when STORAGE=s3"] });

    const s3 = parseConfig({ DATA_DIR: "/srv/bookdist", STORAGE: "s3", S3_BUCKET: "books" });
    if (!s3.ok) throw new Error(s3.problems.join());
    expect(s3.config.storage).toEqual({
      driver: "s3",
      bucket: "books",
      endpoint: undefined,
      region: "us-east-1",
      accessKeyId: undefined,
      secretAccessKey: undefined,
      prefix: "",
      virtualHostedStyle: false,
      downloads: "redirect",
      presignTtlMs: 5 * 60_000,
    });

    const custom = parseConfig({
      DATA_DIR: "/srv/bookdist",
      STORAGE: "s3",
      S3_BUCKET: "books",
      S3_ENDPOINT: "http://127.0.0.1:7480",
      S3_PREFIX: "prod/",
      S3_VIRTUAL_HOSTED: "true",
      S3_DOWNLOADS: "proxy",
      S3_PRESIGN_TTL: "1h",
    });
    if (!custom.ok) throw new Error(custom.problems.join());
    expect(custom.config.storage).toMatchObject({
      endpoint: "http://127.0.0.1:7480",
      prefix: "prod/",
      virtualHostedStyle: true,
      downloads: "proxy",
      presignTtlMs: 3_600_000,
    });

    const bad = parseConfig({
      DATA_DIR: "/srv/bookdist",
      STORAGE: "s3",
      S3_BUCKET: "books",
      S3_ENDPOINT: "ftp://x",
      S3_DOWNLOADS: "stream",
      S3_PRESIGN_TTL: "8d",
      S3_PREFIX: "a b",
    });
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems.map((problem) => problem.split(":")[0])).toEqual([
      "S3_ENDPOINT",
      "S3_PREFIX",
      "S3_DOWNLOADS",
      "S3_PRESIGN_TTL",
    ]);
  });

  test("the password hash cost is production's, whatever the environment says", () => {
    const result = parseConfig({ DATA_DIR: "/srv/bookdist", PASSWORD_HASH_COST: "4", BCRYPT_COST: "4" });
    if (!result.ok) throw new Error(result.problems.join());
    expect(result.config.passwordHashCost).toBe(PASSWORD_HASH_COST);
    expect(PASSWORD_HASH_COST).toBe(10);
  });

  test("values are parsed: durations, sizes, lists", () => {
    const result = parseConfig({
      PORT: "9000",
      SESSION_TTL: "12h",
      SESSION_IDLE_TIMEOUT: "300",
      MAX_COVER_BYTES: "1MiB",
      CORS_ORIGINS: "https://a.example,https://b.example",
      PUBLIC_URL: "https://books.example.com/",
      THROTTLE: "off",
      DATABASE_URL: "postgres://u@h/db",
      SHUTDOWN_GRACE: "2m",
    });
    if (!result.ok) throw new Error(result.problems.join());
    expect(result.config.port).toBe(9000);
    expect(result.config.sessionTtlMs).toBe(12 * 3_600_000);
    expect(result.config.sessionIdleTimeoutMs).toBe(300_000);
    expect(result.config.maxCoverBytes).toBe(1024 ** 2);
    expect(result.config.corsOrigins).toEqual(["https://a.example", "https://b.example"]);
    expect(result.config.publicUrl).toBe("https://books.example.com");
    expect(result.config.throttle).toBe(false);
    expect(result.config.databaseUrl).toBe("postgres://u@h/db");
    expect(result.config.shutdownGraceMs).toBe(120_000);
  });

  test("every bad value is reported on its own line", () => {
    const result = parseConfig({
      PORT: "eighty",
      STORE_DRIVER: "ldap",
      STORE_TABLE_PREFIX: "wp_; DROP TABLE",
      SESSION_TTL: "forever",
      MAX_ARCHIVE_BYTES: "2 parsecs",
      QR_PAYLOAD_TEMPLATE: "https://x/",
      SESSION_CLEANUP_CRON: "every now and then",
      DATABASE_URL: "mysql://x",
      JWT_SECRET: "short",
      THROTTLE: "maybe",
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const names = result.problems.map((line) => line.split(":")[0]);
    expect(names.sort()).toEqual(
      [
        "DATABASE_URL",
        "JWT_SECRET",
        "MAX_ARCHIVE_BYTES",
        "PORT",
        "QR_PAYLOAD_TEMPLATE",
        "SESSION_CLEANUP_CRON",
        "SESSION_TTL",
        "STORE_DRIVER",
        "STORE_TABLE_PREFIX",
        "THROTTLE",
      ].sort(),
    );
    for (const line of result.problems) expect(line).not.toContain("\n");
  });

  const problemsOf = (env: Record<string, string>) => {
    const result = parseConfig(env);
    return result.ok ? [] : result.problems;
  };

  test("AUDIT_RETENTION: 365d by default, a duration of at least a day", () => {
    const fallback = parseConfig({});
    expect(fallback.ok && fallback.config.auditRetentionMs).toBe(365 * 86_400_000);
    const set = parseConfig({ AUDIT_RETENTION: "90d" });
    expect(set.ok && set.config.auditRetentionMs).toBe(90 * 86_400_000);
    expect(problemsOf({ AUDIT_RETENTION: "forever" })).toEqual([
      'AUDIT_RETENTION: "forever" is not a duration such as 30d, 12h, 15m or 90s',
    ]);
    expect(problemsOf({ AUDIT_RETENTION: "12h" })).toEqual([
      'AUDIT_RETENTION: "12h" is shorter than the minimum, 1d: the audit log is kept in days',
    ]);
  });

  test("metrics: off unless METRICS_PORT is set, on 127.0.0.1 by default, never on PORT", () => {
    const off = parseConfig({});
    if (!off.ok) throw new Error(off.problems.join());
    expect(off.config.metricsPort).toBeUndefined();
    const on = parseConfig({ METRICS_PORT: "9464" });
    if (!on.ok) throw new Error(on.problems.join());
    expect(on.config).toMatchObject({ metricsPort: 9464, metricsHost: "127.0.0.1" });
    expect(problemsOf({ PORT: "9000", METRICS_PORT: "9000" })).toEqual([
      "METRICS_PORT: must differ from PORT",
    ]);
    expect(problemsOf({ METRICS_PORT: "8080" })).toEqual(["METRICS_PORT: must differ from PORT"]);
    expect(problemsOf({ METRICS_PORT: "nine" })).toHaveLength(1);
  });

  test("ADMIN_EMAILS is retired: one line naming `bun run admin grant`", () => {
    const problems = problemsOf({ ADMIN_EMAILS: "boss@example.com" });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toStartWith("ADMIN_EMAILS: ");
    expect(problems[0]).toContain("bun run admin grant");
    expect(problems[0]).not.toContain("\n");
    // Empty counts as unset, as for every variable.
    expect(problemsOf({ ADMIN_EMAILS: "" })).toEqual([]);
  });

  test("CORS_ORIGINS: origins as browsers send them, or * alone", () => {
    const good =
      "https://app.example.com,http://localhost:5173,http://127.0.0.1:8080,http://[::1]:3000,capacitor://localhost";
    const parsed = parseConfig({ CORS_ORIGINS: good });
    if (!parsed.ok) throw new Error(parsed.problems.join("\n"));
    expect(parsed.config.corsOrigins).toHaveLength(5);
    const star = parseConfig({ CORS_ORIGINS: "*" });
    expect(star.ok && star.config.corsOrigins).toEqual(["*"]);

    const bad = [
      "https://app.example.com/",
      "https://app.example.com/path",
      "app.example.com",
      "https://APP.example.com",
      "https://app.example.com:443",
      "http://localhost:99999",
      "https://user@app.example.com",
      "https://app.example.com?x=1",
    ];
    const problems = problemsOf({ CORS_ORIGINS: bad.join(",") });
    expect(problems).toHaveLength(bad.length);
    bad.forEach((item, i) => {
      expect(problems[i]).toStartWith(
        `CORS_ORIGINS: "${item}" is not an origin such as https://app.example.com`,
      );
    });
    expect(problemsOf({ CORS_ORIGINS: "*,https://app.example.com" })).toEqual([
      'CORS_ORIGINS: "*" allows every origin, so it must be the only item',
    ]);
  });

  test("durations: at most 10 years, so a login never computes an Invalid Date", () => {
    const longest = parseConfig({ SESSION_TTL: "3650d", SESSION_IDLE_TIMEOUT: "3650d" });
    expect(longest.ok).toBe(true);
    for (const value of ["3651d", "99999999999999d", "1".repeat(400)]) {
      const problems = problemsOf({ SESSION_TTL: value, SESSION_IDLE_TIMEOUT: value });
      expect(problems).toEqual([
        `SESSION_TTL: "${value}" is longer than the maximum, 3650d (10 years)`,
        `SESSION_IDLE_TIMEOUT: "${value}" is longer than the maximum, 3650d (10 years)`,
      ]);
    }
  });

  test("ENTITLEMENT_TTL and ENTITLEMENT_KEY_OVERLAP: durations, 30d and 1d by default; a token lives at least 1m", () => {
    const defaults = parseConfig({});
    expect(
      defaults.ok && [defaults.config.entitlementTtlMs, defaults.config.entitlementKeyOverlapMs],
    ).toEqual([30 * 86_400_000, 86_400_000]);
    const set = parseConfig({ ENTITLEMENT_TTL: "7d", ENTITLEMENT_KEY_OVERLAP: "90m" });
    expect(set.ok && [set.config.entitlementTtlMs, set.config.entitlementKeyOverlapMs]).toEqual([
      7 * 86_400_000,
      90 * 60_000,
    ]);
    expect(problemsOf({ ENTITLEMENT_TTL: "59s", ENTITLEMENT_KEY_OVERLAP: "soon" })).toEqual([
      'ENTITLEMENT_TTL: "59s" is shorter than the minimum, 1m: a token must outlive its trip to the app',
      'ENTITLEMENT_KEY_OVERLAP: "soon" is not a duration such as 30d, 12h, 15m or 90s',
    ]);
  });

  test("SESSION_IDLE_TIMEOUT: at least 2 minutes, since last use is recorded once a minute", () => {
    for (const value of ["1", "90s", "119999ms", "1m"]) {
      const problems = problemsOf({ SESSION_IDLE_TIMEOUT: value });
      expect(problems).toHaveLength(1);
      expect(problems[0]).toStartWith(`SESSION_IDLE_TIMEOUT: "${value}" is shorter than the minimum, 2m`);
      expect(problems[0]).toContain("once a minute");
    }
    const two = parseConfig({ SESSION_IDLE_TIMEOUT: "2m" });
    expect(two.ok && two.config.sessionIdleTimeoutMs).toBe(120_000);
  });

  test("CONSOLE_IDLE_TIMEOUT (30m) and CONSOLE_SESSION_TTL (12h): defaults, floors, bad values", () => {
    const defaults = parseConfig({});
    expect(defaults.ok && defaults.config.consoleIdleTimeoutMs).toBe(30 * 60_000);
    expect(defaults.ok && defaults.config.consoleSessionTtlMs).toBe(12 * 3_600_000);
    const set = parseConfig({ CONSOLE_IDLE_TIMEOUT: "10m", CONSOLE_SESSION_TTL: "8h" });
    expect(set.ok && set.config.consoleIdleTimeoutMs).toBe(600_000);
    expect(set.ok && set.config.consoleSessionTtlMs).toBe(8 * 3_600_000);
    expect(problemsOf({ CONSOLE_IDLE_TIMEOUT: "1m", CONSOLE_SESSION_TTL: "30s" })).toEqual([
      'CONSOLE_IDLE_TIMEOUT: "1m" is shorter than the minimum, 2m: a session in use has its last use recorded every 30 s, and at least once a minute, so a shorter timeout could end sessions in use',
      'CONSOLE_SESSION_TTL: "30s" is shorter than the minimum, 1m: a sign-in must outlive its first page',
    ]);
    expect(problemsOf({ CONSOLE_IDLE_TIMEOUT: "soon" })).toEqual([
      'CONSOLE_IDLE_TIMEOUT: "soon" is not a duration such as 30d, 12h, 15m or 90s',
    ]);
  });

  test("JWT_SECRET: at least 32 characters, at least 16 of them different, in one line", () => {
    const rule = "JWT_SECRET: must be at least 32 characters, at least 16 of them different";
    for (const weak of [
      " ".repeat(40),
      "a".repeat(32),
      "abcdefghijklmno".repeat(3),
      "0123456789abcdefghij",
    ]) {
      expect(problemsOf({ JWT_SECRET: weak })).toEqual([rule]);
    }
    // Characters, not UTF-16 units: 16 emoji are 32 units but 16 characters.
    expect(problemsOf({ JWT_SECRET: "😀😁😂😃😄😅😆😇😈😉😊😋😌😍😎😏" })).toEqual([rule]);
    for (const strong of ["0123456789abcdef0123456789abcdef", "correct horse battery staple, twice!"]) {
      expect(problemsOf({ JWT_SECRET: strong })).toEqual([]);
    }
  });

  test("the real server refuses a weak JWT_SECRET: non-zero exit, one line naming the rule", async () => {
    for (const weak of [" ".repeat(40), "a".repeat(32)]) {
      const started = startRealServer({ env: { JWT_SECRET: weak } });
      const error = await started.then(
        async (server) => {
          await server.stop();
          return new Error("the server started");
        },
        (refused: Error) => refused,
      );
      // startRealServer's message: the exit code, then every line the server wrote.
      const [exit, ...lines] = error.message.split("\n");
      expect(exit).toMatch(/^the server exited with [1-9]\d* before listening:$/);
      expect(lines).toEqual([
        "bookdist: invalid configuration: JWT_SECRET: must be at least 32 characters, at least 16 of them different",
      ]);
    }
  }, 30_000);

  test("the wordpress driver needs its database URL", () => {
    const result = parseConfig({ STORE_DRIVER: "wordpress" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]).toStartWith("STORE_DATABASE_URL:");
  });

  test("SHOP_WEBHOOK_SECRET: at least 20 characters; the real server refuses a shorter one in one line", async () => {
    const rule = "SHOP_WEBHOOK_SECRET: must be at least 20 characters";
    for (const short of ["12345678", "s3cr3t&amp;webhook", "a".repeat(19)])
      expect(problemsOf({ SHOP_WEBHOOK_SECRET: short })).toEqual([rule]);
    expect(problemsOf({ SHOP_WEBHOOK_SECRET: "a".repeat(20) })).toEqual([]);
    const error = await startRealServer({ env: { SHOP_WEBHOOK_SECRET: "eight ch" } }).then(
      async (server) => {
        await server.stop();
        return new Error("the server started");
      },
      (refused: Error) => refused,
    );
    const [exit, ...lines] = error.message.split("\n");
    expect(exit).toMatch(/^the server exited with [1-9]\d* before listening:$/);
    expect(lines).toEqual([`bookdist: invalid configuration: ${rule}`]);
  }, 30_000);

  test("shop orders: off by default; on needs the wordpress store, in one line", () => {
    const defaults = parseConfig({});
    if (!defaults.ok) throw new Error(defaults.problems.join());
    expect(defaults.config).toMatchObject({
      shopOrders: false,
      shopPaidStatuses: ["wc-processing", "wc-completed"],
      shopSyncCron: "* * * * *",
      shopWebhookSecret: undefined,
      shopGuestOrders: "claim",
    });
    const embedded = parseConfig({ SHOP_ORDERS: "on" });
    expect(embedded).toEqual({
      ok: false,
      problems: [
        "SHOP_ORDERS: on requires STORE_DRIVER=wordpress (the orders are read from the shop's database)",
      ],
    });
    const on = parseConfig({
      SHOP_ORDERS: "on",
      STORE_DRIVER: "wordpress",
      STORE_DATABASE_URL: "mysql://bookdist@127.0.0.1/wordpress",
      SHOP_PAID_STATUSES: "wc-completed, wc-shipped",
      SHOP_GUEST_ORDERS: "ignore",
    });
    if (!on.ok) throw new Error(on.problems.join());
    expect(on.config).toMatchObject({
      shopOrders: true,
      shopPaidStatuses: ["wc-completed", "wc-shipped"],
      shopGuestOrders: "ignore",
    });
    const bad = parseConfig({
      SHOP_PAID_STATUSES: "Processing!",
      SHOP_SYNC_CRON: "often",
      SHOP_GUEST_ORDERS: "x",
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems.map((line) => line.split(":")[0])).toEqual([
        "SHOP_PAID_STATUSES",
        "SHOP_SYNC_CRON",
        "SHOP_GUEST_ORDERS",
      ]);
    // An upgrade that still names the removed value is told why, in one line.
    const removed = parseConfig({ SHOP_GUEST_ORDERS: "match-email" });
    expect(removed).toEqual({
      ok: false,
      problems: [
        "SHOP_GUEST_ORDERS: match-email is gone (an e-mail address proves nothing: anyone can register it); use claim or ignore",
      ],
    });
  });

  test("start-up with a bad value exits non-zero with readable lines", () => {
    const run = Bun.spawnSync(["bun", "run", "src/index.ts"], {
      cwd: `${import.meta.dir}/..`,
      env: childEnv({ PORT: "-1", STORE_DRIVER: "nope" }),
    });
    expect(run.exitCode).toBe(1);
    const lines = run.stderr.toString().trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.startsWith("bookdist: invalid configuration: "))).toBe(true);
  });
});
