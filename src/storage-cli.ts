// `bun run storage migrate`: copies DATA_DIR/blobs into the bucket of STORAGE=s3 (S3_* variables,
// same environment and .env as the server: its first line says which), idempotently, checking
// every object by its sha256.
// Safe to run while a server still uses the local files; switch it to STORAGE=s3 afterwards.
// `bun run storage adopt`: this deployment takes over the files or objects its database names
// (README "Storage"), so that its cleanup may remove them once nothing names them.
import { join } from "node:path";
import { describeDatabase, describeStorage, describeTargets, withoutSecrets } from "./cli-targets";
import { type Config, loadConfigOrExit } from "./config";
import { openDatabase } from "./db/client";
import { withTransaction } from "./db/transaction";
import { forTerminal } from "./lib/control-characters";
import { markAdopted, openDeployment } from "./repositories/deployment";
import { type AuditEvent, cliSource, recordAudit, recordAuditAlone } from "./services/audit";
import { adoptNamedBlobs } from "./storage/adopt-blobs";
import { LocalBlobStore } from "./storage/blob-store";
import { createBlobStore } from "./storage/create-blob-store";
import { migrateBlobs } from "./storage/migrate-blobs";
import { S3BlobStore } from "./storage/s3-blob-store";

const USAGE = [
  "usage: bun run storage migrate   (with STORAGE=s3 and the S3_* variables set)",
  "       bun run storage adopt     (this deployment takes over the files its database names)",
].join("\n");

const [command, ...rest] = process.argv.slice(2);
if ((command !== "migrate" && command !== "adopt") || rest.length > 0) {
  console.error(USAGE);
  process.exit(2);
}
const config = loadConfigOrExit();
// First, what it touches (cli-targets.ts): the database, store and storage this environment names.
console.log(describeTargets(config));
try {
  process.exit(command === "adopt" ? await adopt(config) : await migrate(config));
} catch (error) {
  // No stack, key or password: the message says what failed, and where.
  const where =
    command === "adopt"
      ? `adopting for the database (${describeDatabase(config.databaseUrl)}) in ${describeStorage(config)}`
      : `copying local ${join(config.dataDir, "blobs")} into ${describeStorage(config)}`;
  const message = withoutSecrets(error instanceof Error ? error.message : String(error), config);
  console.error(forTerminal(`bookdist storage: failed ${where}: ${message}`));
  process.exit(1);
}

async function migrate(config: Config): Promise<number> {
  if (config.storage.driver !== "s3") {
    console.error(
      forTerminal(
        `bookdist storage: the storage is ${describeStorage(config)}: STORAGE=s3 and S3_BUCKET must be set: they name the bucket to copy into`,
      ),
    );
    return 2;
  }
  const dir = join(config.dataDir, "blobs");
  const source = new LocalBlobStore(dir);
  const target = new S3BlobStore(config.storage, dir);
  const report = await migrateBlobs(source, target, (line) => console.log(line));
  await recordAuditOf(config, {
    by: cliSource,
    at: new Date(),
    action: "storage.migrate",
    target: { type: "storage", id: config.storage.bucket },
    changes: {
      copied: [null, report.copied],
      sizeCopied: [null, report.bytesCopied], // "bytes" would read as file bytes in an event
      alreadyThere: [null, report.alreadyThere],
      damaged: [null, report.damaged.length],
    },
  });
  console.log(
    `copied ${report.copied} blob(s) (${report.bytesCopied} bytes), ${report.alreadyThere} already in the bucket, ${report.damaged.length} damaged and left out`,
  );
  return report.damaged.length > 0 ? 1 : 0;
}

/** Idempotent: a marker written again is the same marker. */
async function adopt(config: Config): Promise<number> {
  const database = await openDatabase(config.databaseUrl, { migrate: true });
  try {
    const deployment = await openDeployment(database.db, new Date());
    const blobs = createBlobStore(config, deployment.id);
    const report = await adoptNamedBlobs(database.db, blobs, deployment.originalId ?? undefined);
    const now = new Date();
    await withTransaction(database.db, async (tx) => {
      await markAdopted(tx, deployment.id);
      await recordAudit(tx, {
        by: cliSource,
        at: now,
        action: "storage.adopt",
        target: { type: "deployment", id: deployment.id },
        changes: { adopted: [null, report.adopted], missing: [null, report.missing] },
      });
    });
    console.log(
      `adopted ${report.adopted} blob(s) the database names for deployment ${deployment.id}${report.missing > 0 ? `; ${report.missing} named but missing` : ""}`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

/** The copy as an audit event of this deployment's database (README "Audit log"). */
async function recordAuditOf(config: Config, event: AuditEvent): Promise<void> {
  const database = await openDatabase(config.databaseUrl, { migrate: true });
  try {
    await recordAuditAlone(database.db, event);
  } finally {
    await database.close();
  }
}
