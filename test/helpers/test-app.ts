// The real app, in-process, over a fresh database, a temp data folder and a fixed clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type App, createApp } from "../../src/app";
import { type Config, parseConfig } from "../../src/config";
import type { Deps } from "../../src/deps";
import { isStreamedList, markStreamedList } from "../../src/http/list-stream";
import { isStreamedBody, markStreamedBody } from "../../src/http/streamed-body";
import { fixedClock } from "../../src/lib/clock";
import type { Logger } from "../../src/lib/logger";
import { readDeployment } from "../../src/repositories/deployment";
import { grantAdmin } from "../../src/services/admin-grants";
import { cliSource } from "../../src/services/audit";
import type { ShopSync } from "../../src/services/shop-sync";
import { createBlobStore } from "../../src/storage/create-blob-store";
import type { StoreDirectory } from "../../src/store/directory";
import { EmbeddedStore } from "../../src/store/embedded";
import { createTestDatabase, type TestDatabase } from "./databases";
import { auditedLogger, auditResponse, type IdentityMarks } from "./log-audit";
import { scopeProbeRouter } from "./scope-probe";

export const ADMIN_EMAIL = "admin@example.com";
/**
 * bcrypt's lowest cost, for the hashes the test app's registrations write: each costs ~1 ms
 * instead of ~50. A test whose point is what a production hash costs passes PASSWORD_HASH_COST.
 */
export const TEST_PASSWORD_HASH_COST = 4;
export const TEST_PASSWORD = "correct horse battery staple";

/** Bodies produced while they are sent (src/http/list-stream.ts, streamed-body.ts): searched as read. */
const STREAMED_MARKS: IdentityMarks[] = [
  { has: isStreamedList, mark: markStreamedList },
  { has: isStreamedBody, mark: markStreamedBody },
];

export interface TestApp {
  app: App;
  deps: Deps;
  config: Config;
  clock: ReturnType<typeof fixedClock>;
  database: TestDatabase;
  dataDir: string;
  /** app.request with a JSON body and/or a Bearer token. */
  call(
    method: string,
    path: string,
    options?: {
      token?: string;
      json?: unknown;
      headers?: Record<string, string>;
      body?: RequestInit["body"];
    },
  ): Promise<Response>;
  /** Registers a user and returns its token and uuid. */
  user(email?: string): Promise<{ token: string; uuid: string; email: string }>;
  /** ADMIN_EMAIL, registered and granted admin as `bun run admin grant` does. */
  admin(): Promise<{ token: string; uuid: string; email: string }>;
  /** `bun run admin grant <identifier>`, in-process. */
  grantAdmin(identifier: string): Promise<void>;
  close(): Promise<void>;
}

export async function createTestApp(
  options: {
    env?: Record<string, string>;
    store?: (deps: Omit<Deps, "store">) => StoreDirectory | Promise<StoreDirectory>;
    /** SHOP_ORDERS=on: the reconciliation, built over the store (src/services/open-shop.ts). */
    shop?: (deps: Deps) => Promise<ShopSync | undefined>;
    onQuery?: (query: string) => void;
    /** Default: silent. A test that asserts on log lines passes its own. */
    logger?: Logger;
    /** Default: TEST_PASSWORD_HASH_COST. config.ts always sets the production cost. */
    passwordHashCost?: number;
    /** "sqlite": over a SQLite file whatever TEST_DATABASE_URL says (see createTestDatabase). */
    dialect?: "sqlite";
    /** Mount the test-only operations with a device-token scope (scope-probe.ts). */
    scopeProbe?: boolean;
  } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "bookdist-data-"));
  const parsed = parseConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: "silent",
    ...options.env,
  });
  if (!parsed.ok) throw new Error(parsed.problems.join("\n"));
  const config: Config = {
    ...parsed.config,
    passwordHashCost: options.passwordHashCost ?? TEST_PASSWORD_HASH_COST,
  };
  const database = await createTestDatabase({ onQuery: options.onQuery, dialect: options.dialect });
  const clock = fixedClock("2026-11-21T10:00:00.000Z");
  const blobs = createBlobStore(config, (await readDeployment(database.handle.db)).id);
  await blobs.init();
  const base = {
    config,
    db: database.handle.db,
    pingDatabase: () => database.handle.ping(),
    blobs,
    clock,
    logger: options.logger ?? auditedLogger,
    jwtSecret: "test-secret-that-is-long-enough-for-hs256",
  };
  const deps: Deps = {
    ...base,
    store: options.store
      ? await options.store(base)
      : new EmbeddedStore(base.db, clock, config.passwordHashCost),
  };
  if (options.shop) deps.shop = await options.shop(deps);
  const app = createApp(deps, options.scopeProbe ? [[scopeProbeRouter()]] : []);
  // The one door every answer comes back to a test through: `call`, `app.request` (Hono's calls
  // `this.fetch`) and a Bun.serve a test wires over `app.fetch`. Each answer is searched for a
  // private key (test/helpers/log-audit.ts); the run fails in the preload if one held it.
  const appFetch = app.fetch;
  app.fetch = async (...args: Parameters<App["fetch"]>) => {
    const [request] = args;
    const source = `in-process app, ${request.method} ${new URL(request.url).pathname}`;
    return auditResponse(await appFetch(...args), source, STREAMED_MARKS);
  };
  let userCount = 0;

  const call: TestApp["call"] = (method, path, { token, json, headers = {}, body } = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (token) (init.headers as Record<string, string>).Authorization = `Bearer ${token}`;
    if (json !== undefined) {
      (init.headers as Record<string, string>)["Content-Type"] = "application/json";
      init.body = JSON.stringify(json);
    } else if (body !== undefined) init.body = body;
    return Promise.resolve(app.request(path, init));
  };

  const user: TestApp["user"] = async (email) => {
    const address = email ?? `reader${++userCount}-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const response = await call("POST", "/authentication/register", {
      json: { email: address, password: TEST_PASSWORD },
    });
    if (response.status !== 201)
      throw new Error(`register ${address}: ${response.status} ${await response.text()}`);
    const session = (await response.json()) as { token: string; user: { uuid: string } };
    return { token: session.token, uuid: session.user.uuid, email: address };
  };

  const grant: TestApp["grantAdmin"] = async (identifier) => {
    await grantAdmin(deps, cliSource, identifier);
  };

  let adminSession: Promise<{ token: string; uuid: string; email: string }> | undefined;
  return {
    app,
    deps,
    config,
    clock,
    database,
    dataDir,
    call,
    user,
    grantAdmin: grant,
    admin: () => {
      adminSession ??= user(ADMIN_EMAIL).then(async (admin) => {
        await grant(admin.email);
        return admin;
      });
      return adminSession;
    },
    async close() {
      await deps.shop?.close();
      await deps.store.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
