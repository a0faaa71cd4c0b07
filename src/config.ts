// The only reader of process.env: the environment is parsed and validated once, here.
import { resolve } from "node:path";
import { Cron } from "croner";
import { z } from "zod";
import { PASSWORD_HASH_COST } from "./auth/passwords";
import { type AddressRange, parseAddressRange } from "./lib/ip-address";
import type { LogLevel } from "./lib/logger";
import { SQL_IDENTIFIER, SQL_IDENTIFIER_RULE } from "./lib/sql-identifier";
import { trimEndChars } from "./lib/trim";

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const byteUnits: Record<string, number> = {
  "": 1,
  b: 1,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
};

/** Longer than any session should live, and far below what makes `new Date(now + ttl)` invalid. */
const MAX_DURATION_MS = 3650 * 86_400_000;

/**
 * A session re-reads its account, and records its last use in the same write, at its first request
 * this long or longer after the last time (services/account-check.ts): the one touch interval.
 */
export const SESSION_TOUCH_INTERVAL_MS = 30_000;

/** BLOB_CLEANUP_GRACE's floor: an upload stores its file, then its record, within seconds. */
export const MIN_BLOB_GRACE_MS = 10_000;

/** "30d", "15m", "90s", "500ms" or a bare number of seconds → milliseconds. */
const duration = (fallback: string, minMs = 1, minReason = "") =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const match = /^(\d+)\s*(ms|s|m|h|d)?$/i.exec(text.trim());
      const ms = match ? Number(match[1]) * (durationUnits[(match[2] ?? "s").toLowerCase()] ?? 1000) : 0;
      if (!match || ms <= 0) {
        ctx.addIssue({ code: "custom", message: `"${text}" is not a duration such as 30d, 12h, 15m or 90s` });
      } else if (ms > MAX_DURATION_MS) {
        ctx.addIssue({ code: "custom", message: `"${text}" is longer than the maximum, 3650d (10 years)` });
      } else if (ms < minMs) {
        ctx.addIssue({ code: "custom", message: `"${text}" is shorter than the minimum, ${minReason}` });
      } else return ms;
      return z.NEVER;
    });

/**
 * HS256 signs with the secret's bytes: a long secret of few distinct characters (40 spaces, 32 × a)
 * is guessed as easily as a short one. Counted in code points, as an operator counts characters.
 */
const STRONG_SECRET_RULE = "must be at least 32 characters, at least 16 of them different";

function isStrongSecret(secret: string): boolean {
  const characters = [...secret];
  return characters.length >= 32 && new Set(characters).size >= 16;
}

/** "10MiB", "2GiB", "512000" → bytes. */
const byteSize = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim());
      const unit = byteUnits[(match?.[2] ?? "").toLowerCase()];
      if (!match || unit === undefined || Number(match[1]) <= 0) {
        ctx.addIssue({ code: "custom", message: `"${text}" is not a size such as 10MiB, 2GiB or 1048576` });
        return z.NEVER;
      }
      return Number(match[1]) * unit;
    });

const commaList = z
  .string()
  .default("")
  .transform((text) =>
    text
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== ""),
  );

/** TRUSTED_PROXIES: addresses and CIDR ranges, one problem line per bad entry. */
const addressRangeList = commaList.transform((items, ctx) => {
  const ranges: AddressRange[] = [];
  for (const item of items) {
    const range = parseAddressRange(item);
    if (typeof range === "string") ctx.addIssue({ code: "custom", message: range });
    else ranges.push(range);
  }
  return ranges;
});

/** What a browser sends as Origin: scheme://host[:port], lower case, no path, no default port. */
const ORIGIN =
  /^[a-z][a-z0-9+.-]*:\/\/(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

const originList = commaList.superRefine((items, ctx) => {
  for (const item of items) {
    if (item === "*") {
      if (items.length > 1)
        ctx.addIssue({ code: "custom", message: `"*" allows every origin, so it must be the only item` });
    } else if (!ORIGIN.test(item) || !isSerializedOrigin(item)) {
      ctx.addIssue({
        code: "custom",
        message: `"${item}" is not an origin such as https://app.example.com or http://localhost:5173 (scheme://host[:port] as browsers send it: lower case, no path, no trailing slash), nor "*"`,
      });
    }
  }
});

/** For http(s), the URL parser's own origin must be the text (e.g. no :443 on https). */
function isSerializedOrigin(item: string): boolean {
  const url = URL.parse(item);
  if (!url) return false;
  if (url.protocol !== "http:" && url.protocol !== "https:") return true;
  const port = Number(url.port || 0);
  return url.origin === item && port <= 65535;
}

const EnvSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default("0.0.0.0"),
    // Unset: no metrics listener. 0 lets the kernel pick (tests); never the public port (index.ts).
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_HOST: z.string().min(1).default("127.0.0.1"),
    PUBLIC_URL: z
      .url({ protocol: /^https?$/ })
      .transform((url) => trimEndChars(url, "/"))
      .optional(),
    DATA_DIR: z.string().min(1).default("./data"),
    DATABASE_URL: z
      .string()
      .regex(
        /^(sqlite:|postgres:\/\/|postgresql:\/\/)/,
        "must start with sqlite:, postgres:// or postgresql://",
      )
      .optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
    STORE_DRIVER: z.enum(["embedded", "wordpress"]).default("embedded"),
    STORE_DATABASE_URL: z
      .string()
      .regex(/^mysql:\/\//, "must start with mysql://")
      .optional(),
    STORE_TABLE_PREFIX: z.string().regex(SQL_IDENTIFIER, SQL_IDENTIFIER_RULE).default("wp_"),
    STORE_UUID_META_KEY: z.string().regex(SQL_IDENTIFIER, SQL_IDENTIFIER_RULE).default("_bookdist_uuid"),
    JWT_SECRET: z.string().refine(isStrongSecret, STRONG_SECRET_RULE).optional(),
    JWT_ISSUER: z.string().min(1).default("bookdist"),
    SESSION_TTL: duration("30d"),
    // README "Offline entitlements": how long a token lives, and how long a rotated key is
    // published before it signs (apps fetch the JWKS meanwhile).
    ENTITLEMENT_TTL: duration("30d", 60_000, "1m: a token must outlive its trip to the app"),
    ENTITLEMENT_KEY_OVERLAP: duration("1d"),
    SESSION_IDLE_TIMEOUT: duration(
      "14d",
      // A session used at least once an interval has its last use recorded at least once every two;
      // a write lost to a busy database waits for the next request: twice that is the floor.
      4 * SESSION_TOUCH_INTERVAL_MS,
      "2m: a session in use has its last use recorded every 30 s, and at least once a minute, so a shorter timeout could end sessions in use",
    ),
    // README "Console": a console session's idle limit and absolute lifetime. The idle floor is the
    // API sessions' (a session in use records its last use every 30 s).
    CONSOLE_IDLE_TIMEOUT: duration(
      "30m",
      4 * SESSION_TOUCH_INTERVAL_MS,
      "2m: a session in use has its last use recorded every 30 s, and at least once a minute, so a shorter timeout could end sessions in use",
    ),
    CONSOLE_SESSION_TTL: duration("12h", 60_000, "1m: a sign-in must outlive its first page"),
    // README "Audit log": how long events are kept; the session cleanup job deletes older ones.
    AUDIT_RETENTION: duration("365d", 86_400_000, "1d: the audit log is kept in days"),
    SESSION_CLEANUP_CRON: z
      .string()
      .default("*/15 * * * *")
      .refine(isCronPattern, "is not a cron pattern such as */15 * * * *"),
    // README "Storage": when the blob cleanup runs (6 fields: with seconds), and the age below
    // which nothing is removed: uploads in flight are younger.
    BLOB_CLEANUP_CRON: z
      .string()
      .default("17 * * * *")
      .refine(isCronPattern, "is not a cron pattern such as 17 * * * *"),
    BLOB_CLEANUP_GRACE: duration(
      "60m",
      MIN_BLOB_GRACE_MS,
      "10s: an upload in flight stores its file before its record and must not lose it to the cleanup",
    ),
    // Retired: it made an admin of whoever registered a listed address first.
    ADMIN_EMAILS: z
      .string()
      .optional()
      .refine(
        (value) => value === undefined,
        "is no longer read: grant admins with `bun run admin grant <email-or-login>` and remove it",
      ),
    MAX_COVER_BYTES: byteSize("10MiB"),
    MAX_ARCHIVE_BYTES: byteSize("2GiB"),
    MAX_APK_BYTES: byteSize("512MiB"),
    QR_PAYLOAD_TEMPLATE: z.string().includes("{code}", { message: "must contain {code}" }).default("{code}"),
    CORS_ORIGINS: originList,
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    THROTTLE: z.enum(["on", "off"]).default("on"),
    TRUSTED_PROXIES: addressRangeList,
    SHUTDOWN_GRACE: duration("30s"),
    SHOP_ORDERS: z.enum(["on", "off"]).default("off"),
    SHOP_PAID_STATUSES: commaList
      .refine((items) => items.length > 0, "must name at least one status, e.g. wc-processing,wc-completed")
      .refine(
        (items) => items.every((item) => SHOP_STATUS.test(item)),
        "must be WooCommerce statuses as stored, e.g. wc-processing,wc-completed",
      )
      .default(["wc-processing", "wc-completed"]),
    SHOP_SYNC_CRON: z
      .string()
      .default("* * * * *")
      .refine(isCronPattern, "is not a cron pattern such as * * * * *"),
    // Anyone who guesses it can make the app reconcile any order at will: too short to guess.
    SHOP_WEBHOOK_SECRET: z.string().min(20, "must be at least 20 characters").optional(),
    SHOP_GUEST_ORDERS: z
      .enum(["claim", "ignore"], {
        // The value earlier versions had: an upgrade that still sets it is told why it is gone.
        error: (issue) =>
          issue.input === "match-email"
            ? "match-email is gone (an e-mail address proves nothing: anyone can register it); use claim or ignore"
            : undefined,
      })
      .default("claim"),
    STORAGE: z.enum(["local", "s3"]).default("local"),
    S3_BUCKET: z.string().min(3).optional(),
    S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    S3_REGION: z.string().min(1).default("us-east-1"),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9!_.*'()/-]*$/, "may hold only letters, digits and !-_.*'()/")
      .default(""),
    S3_VIRTUAL_HOSTED: z.enum(["true", "false"]).default("false"),
    S3_DOWNLOADS: z.enum(["redirect", "proxy"]).default("redirect"),
    // Presigned URLs live at most 7 days (SigV4's limit).
    S3_PRESIGN_TTL: duration("5m", 1000, "1s: presigned URLs count whole seconds").refine(
      (ms) => ms <= 7 * 24 * 60 * 60 * 1000,
      "is at most 7d (the longest a presigned URL may live)",
    ),
  })
  .superRefine((env, ctx) => {
    if (env.STORAGE === "s3" && !env.S3_BUCKET) {
      ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "is required when STORAGE=s3" });
    }
    if (env.STORE_DRIVER === "wordpress" && !env.STORE_DATABASE_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["STORE_DATABASE_URL"],
        message: "is required when STORE_DRIVER=wordpress",
      });
    }
    // Metrics are never served on the public port (README, Metrics).
    if (env.METRICS_PORT !== undefined && env.METRICS_PORT !== 0 && env.METRICS_PORT === env.PORT) {
      ctx.addIssue({ code: "custom", path: ["METRICS_PORT"], message: "must differ from PORT" });
    }
    if (env.SHOP_ORDERS === "on" && env.STORE_DRIVER !== "wordpress") {
      ctx.addIssue({
        code: "custom",
        path: ["SHOP_ORDERS"],
        message: "on requires STORE_DRIVER=wordpress (the orders are read from the shop's database)",
      });
    }
  });

/**
 * Every variable parseConfig reads. The tests give each process they start all of these (their
 * own value or empty, which parseConfig reads as unset), so none comes from `.env` or the shell.
 */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(EnvSchema.shape);

/** A status as WooCommerce stores it: wc-processing, or a plugin's own (letters, digits, - and _). */
const SHOP_STATUS = /^[a-z0-9_-]{1,20}$/;

function isCronPattern(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true }).stop();
    return true;
  } catch {
    return false;
  }
}

export interface Config {
  port: number;
  host: string;
  /** The Prometheus listener's port (README, Metrics); undefined: no metrics listener. */
  metricsPort: number | undefined;
  metricsHost: string;
  publicUrl: string | undefined;
  dataDir: string;
  databaseUrl: string;
  /** Postgres connections per instance. */
  databasePoolMax: number;
  storeDriver: "embedded" | "wordpress";
  storeDatabaseUrl: string | undefined;
  storeTablePrefix: string;
  storeUuidMetaKey: string;
  /** Unset means: use the secret generated once and kept in DATA_DIR (see auth/jwt-secret.ts). */
  jwtSecret: string | undefined;
  jwtIssuer: string;
  /**
   * bcrypt cost of the password hashes the stores write: always PASSWORD_HASH_COST here, with no
   * variable to lower it, so no deployment can weaken it. The in-process test app sets 4.
   */
  passwordHashCost: number;
  sessionTtlMs: number;
  /** Offline entitlements: a token's life (exp − iat). */
  entitlementTtlMs: number;
  /** Offline entitlements: a rotated key is published this long before it signs. */
  entitlementKeyOverlapMs: number;
  sessionIdleTimeoutMs: number;
  sessionCleanupCron: string;
  /** README "Console": a console session ends after this long unused… */
  consoleIdleTimeoutMs: number;
  /** …and this long after its sign-in, used or not. */
  consoleSessionTtlMs: number;
  /** How long audit events are kept (README "Audit log"). */
  auditRetentionMs: number;
  blobCleanupCron: string;
  /** The blob cleanup removes nothing younger than this (at least MIN_BLOB_GRACE_MS). */
  blobCleanupGraceMs: number;
  maxCoverBytes: number;
  maxArchiveBytes: number;
  maxApkBytes: number;
  qrPayloadTemplate: string;
  corsOrigins: string[];
  logLevel: LogLevel;
  throttle: boolean;
  /** Peers whose X-Forwarded-For / Forwarded are believed (README, Configuration); empty: none. */
  trustedProxies: readonly AddressRange[];
  /** After SIGTERM, how long in-flight requests may run before their connections are closed. */
  shutdownGraceMs: number;
  /** README, Shop orders: paid WooCommerce orders grant books (STORE_DRIVER=wordpress only). */
  shopOrders: boolean;
  /** Statuses (as stored, with `wc-`) in which an order counts as paid. */
  shopPaidStatuses: string[];
  shopSyncCron: string;
  /** The webhook's secret; unset: POST /shop/webhook answers 404. */
  shopWebhookSecret: string | undefined;
  /** claim: a guest order waits for POST /shop/claim with its order key; ignore: it grants nothing. */
  shopGuestOrders: "claim" | "ignore";
  /** Where uploaded files live: DATA_DIR/blobs, or an S3-compatible bucket (README, Storage). */
  storage: StorageConfig;
}

export type StorageConfig =
  | { driver: "local" }
  | {
      driver: "s3";
      bucket: string;
      /** Unset: AWS (Bun derives the endpoint from the region). */
      endpoint: string | undefined;
      region: string;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      /** Prepended to `blobs/<sha256>`. */
      prefix: string;
      virtualHostedStyle: boolean;
      downloads: "redirect" | "proxy";
      presignTtlMs: number;
    };

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

export function parseConfig(env: Record<string, string | undefined>): ConfigResult {
  // An empty variable means "not set", as in most .env tooling.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map(
        (issue) => `${issue.path.join(".") || "environment"}: ${issue.message}`,
      ),
    };
  }
  const e = parsed.data;
  const dataDir = resolve(e.DATA_DIR);
  return {
    ok: true,
    config: {
      port: e.PORT,
      host: e.HOST,
      metricsPort: e.METRICS_PORT,
      metricsHost: e.METRICS_HOST,
      publicUrl: e.PUBLIC_URL,
      dataDir,
      databaseUrl: e.DATABASE_URL ?? `sqlite:${resolve(dataDir, "bookdist.sqlite")}`,
      databasePoolMax: e.DATABASE_POOL_MAX,
      storeDriver: e.STORE_DRIVER,
      storeDatabaseUrl: e.STORE_DATABASE_URL,
      storeTablePrefix: e.STORE_TABLE_PREFIX,
      storeUuidMetaKey: e.STORE_UUID_META_KEY,
      jwtSecret: e.JWT_SECRET,
      jwtIssuer: e.JWT_ISSUER,
      passwordHashCost: PASSWORD_HASH_COST,
      sessionTtlMs: e.SESSION_TTL,
      entitlementTtlMs: e.ENTITLEMENT_TTL,
      entitlementKeyOverlapMs: e.ENTITLEMENT_KEY_OVERLAP,
      sessionIdleTimeoutMs: e.SESSION_IDLE_TIMEOUT,
      sessionCleanupCron: e.SESSION_CLEANUP_CRON,
      consoleIdleTimeoutMs: e.CONSOLE_IDLE_TIMEOUT,
      consoleSessionTtlMs: e.CONSOLE_SESSION_TTL,
      auditRetentionMs: e.AUDIT_RETENTION,
      blobCleanupCron: e.BLOB_CLEANUP_CRON,
      blobCleanupGraceMs: e.BLOB_CLEANUP_GRACE,
      maxCoverBytes: e.MAX_COVER_BYTES,
      maxArchiveBytes: e.MAX_ARCHIVE_BYTES,
      maxApkBytes: e.MAX_APK_BYTES,
      qrPayloadTemplate: e.QR_PAYLOAD_TEMPLATE,
      corsOrigins: e.CORS_ORIGINS,
      logLevel: e.LOG_LEVEL,
      throttle: e.THROTTLE === "on",
      trustedProxies: e.TRUSTED_PROXIES,
      shutdownGraceMs: e.SHUTDOWN_GRACE,
      shopOrders: e.SHOP_ORDERS === "on",
      shopPaidStatuses: e.SHOP_PAID_STATUSES,
      shopSyncCron: e.SHOP_SYNC_CRON,
      shopWebhookSecret: e.SHOP_WEBHOOK_SECRET,
      shopGuestOrders: e.SHOP_GUEST_ORDERS,
      storage:
        e.STORAGE === "s3"
          ? {
              driver: "s3",
              bucket: e.S3_BUCKET ?? "",
              endpoint: e.S3_ENDPOINT,
              region: e.S3_REGION,
              accessKeyId: e.S3_ACCESS_KEY_ID,
              secretAccessKey: e.S3_SECRET_ACCESS_KEY,
              prefix: e.S3_PREFIX,
              virtualHostedStyle: e.S3_VIRTUAL_HOSTED === "true",
              downloads: e.S3_DOWNLOADS,
              presignTtlMs: e.S3_PRESIGN_TTL,
            }
          : { driver: "local" },
    },
  };
}

/** Start-up: one readable line per problem on stderr and exit 1, or the config. */
export function loadConfigOrExit(): Config {
  const result = parseConfig(process.env);
  if (result.ok) return result.config;
  for (const problem of result.problems) console.error(`bookdist: invalid configuration: ${problem}`);
  process.exit(1);
}
