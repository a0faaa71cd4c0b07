// Entry: read config, open the database and the store, serve, run jobs; SIGTERM stops it cleanly.
import { createApp } from "./app";
import { resolveJwtSecret } from "./auth/jwt-secret";
import { loadConfigOrExit } from "./config";
import { openDatabase } from "./db/client";
import { listSnapshotSlots, openListSnapshots } from "./db/list-snapshot";
import type { Deps } from "./deps";
import { SHORT_IDLE_SECONDS, timeRequest, timeResponse } from "./http/connection-timeouts";
import { lastResortResponse } from "./http/server-responses";
import { startJobs } from "./jobs/scheduler";
import { systemClock } from "./lib/clock";
import { createLogger, describeError } from "./lib/logger";
import { watchPool } from "./metrics/registry";
import { startMetricsServer } from "./metrics/server";
import { openDeployment } from "./repositories/deployment";
import { openShop } from "./services/open-shop";
import { createBlobStore } from "./storage/create-blob-store";
import { makeDataDirPrivate } from "./storage/private-data-dir";
import { openStore } from "./store/open-store";

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel);
if (!makeDataDirPrivate(config.dataDir))
  logger.warn("DATA_DIR belongs to another user and stays readable by others: give it mode 0700");

try {
  const database = await openDatabase(config.databaseUrl, {
    migrate: true,
    poolMax: config.databasePoolMax,
    logger,
    // Checkpoints and print runs off the event loop (db/writer-worker.ts).
    checkpoints: "worker",
  });
  const store = await openStore(config, database.db, systemClock);
  const shop = await openShop(config, { db: database.db, clock: systemClock, logger, store });
  // Its writes mark their blobs with this deployment's id, which its cleanup goes by.
  const deployment = await openDeployment(database.db, systemClock.now());
  if (deployment.renewed)
    logger.warn(
      "this database was restored from another deployment's: it has a deployment id of its own now and removes none of the files its original wrote (bun run storage adopt, once it replaces the original)",
    );
  const blobs = createBlobStore(config, deployment.id);
  await blobs.init();
  // Uploads cut off by a crash or SIGKILL of an earlier run leave temp files; none is a blob.
  const orphans = await blobs.removeOrphanedTempFiles();
  if (orphans > 0) logger.info("removed temp files of interrupted uploads", { files: orphans });
  const deps: Deps = {
    config,
    db: database.db,
    pingDatabase: () => database.ping(),
    store,
    shop,
    blobs,
    clock: systemClock,
    logger,
    jwtSecret: resolveJwtSecret(config, logger),
  };
  const app = createApp(deps);
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    fetch: async (request, listener) => {
      timeRequest(listener, request);
      return timeResponse(listener, request, await app.fetch(request, listener));
    },
    // Never Bun's development error page (HTML with source paths): what escapes the app is a 500 problem.
    development: false,
    error: (error) => lastResortResponse(logger, error),
    // Archives go up to MAX_ARCHIVE_BYTES (Bun refuses bodies over 128 MiB by default); the
    // routes enforce each limit while streaming.
    maxRequestBodySize:
      Math.max(config.maxArchiveBytes, config.maxApkBytes, config.maxCoverBytes) + 1024 * 1024,
    // For headers and idle keep-alive connections; each request then gets its own (connection-timeouts.ts).
    idleTimeout: SHORT_IDLE_SECONDS,
    // With development off Bun shares the port (SO_REUSEPORT) by default: a second instance
    // started by mistake on the same port would silently take half the traffic.
    reusePort: false,
  });
  watchPool({
    // SQLite: the door's writer and the read-only reader (db/client.ts).
    maxConnections: () => (database.db.dialect === "postgres" ? config.databasePoolMax : 2),
    listSnapshotsOpen: () => openListSnapshots(database.db),
    listSnapshotSlots: () => listSnapshotSlots(database.db),
  });
  // Its own listener, never the public one (README, Metrics); unset METRICS_PORT: none.
  let metricsServer: ReturnType<typeof startMetricsServer> | undefined;
  try {
    if (config.metricsPort !== undefined)
      metricsServer = startMetricsServer(config.metricsHost, config.metricsPort, logger);
  } catch (error) {
    // Told apart from the public port's, in one line as that one is.
    if (!isPortInUse(error)) throw error;
    logger.error(`metrics port ${config.metricsPort} is already in use`, { host: config.metricsHost });
    process.exit(1);
  }
  const jobs = startJobs(deps);
  logger.info("listening", { url: server.url.toString(), database: database.db.dialect, store: store.kind });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal, graceMs: config.shutdownGraceMs });
    jobs.stop();
    // Stop accepting (new connections are refused, idle ones closed: a balancer sends their
    // requests elsewhere); in-flight requests, uploads and downloads may finish within the grace. A
    // client trickling its body must not keep the instance (and everyone's uploads) alive until
    // the orchestrator's SIGKILL.
    const drained = server.stop(false).then(() => true);
    const graceOver = Bun.sleep(config.shutdownGraceMs).then(() => false);
    if (!(await Promise.race([drained, graceOver]))) {
      logger.warn("shutdown grace over: closing the connections still open", { signal });
      await server.stop(true);
    }
    // Scraped until the public listener has drained, so the last requests are counted.
    await metricsServer?.stop(true);
    await shop?.close();
    await store.close();
    await database.close();
    logger.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
} catch (error) {
  // Another process (perhaps another instance) has the port: an everyday mistake, told in one line.
  if (isPortInUse(error)) logger.error(`port ${config.port} is already in use`, { host: config.host });
  else logger.error("start-up failed", describeError(error));
  process.exit(1);
}

function isPortInUse(error: unknown): boolean {
  const { code, syscall } = (error ?? {}) as { code?: unknown; syscall?: unknown };
  return code === "EADDRINUSE" && syscall === "listen";
}
