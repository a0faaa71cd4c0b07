// `bun run admin grant|revoke <email-or-login>` and `bun run admin list`: the only way to make an
// admin besides the store's own roles. Same environment (and .env: Bun loads it for `bun run`,
// from the project's folder, as for `bun run start`) as the server; its first line says which
// database, store and storage that is (cli-targets.ts). Safe to run while the server serves
// (SQLite in WAL mode, Postgres), and live sessions see the change at once.
// `bun run admin backup|restore <dir>`: backup/backup.ts and backup/restore.ts.
// `bun run admin keys rotate|list`: the signing keys of offline entitlements (README "Offline
// entitlements"); only kids, states and times are printed, never a key.
import packageJson from "../package.json" with { type: "json" };
import { resolveJwtSecret } from "./auth/jwt-secret";
import { rolesFor } from "./auth/principal";
import { type BackupReport, backup } from "./backup/backup";
import { BackupError } from "./backup/manifest";
import { restore } from "./backup/restore";
import { describeDatabase, describeStore, describeTargets, withoutSecrets } from "./cli-targets";
import { loadConfigOrExit } from "./config";
import { openDatabase } from "./db/client";
import { systemClock } from "./lib/clock";
import { forTerminal } from "./lib/control-characters";
import { createLogger } from "./lib/logger";
import { AppError } from "./lib/problems";
import { isUuid } from "./lib/uuid";
import { grantAdmin, listAdmins, revokeAdmin, UnknownUserError } from "./services/admin-grants";
import { cliSource, recordAuditAlone } from "./services/audit";
import { type KeyState, listEntitlementKeyStates, rotateEntitlementKey } from "./services/entitlements";
import { makeDataDirPrivate } from "./storage/private-data-dir";
import type { StoreUser } from "./store/directory";
import { openStore } from "./store/open-store";

const USAGE =
  "usage: bun run admin grant <email-or-login> | revoke <email-or-login> | list | backup <dir> | restore <dir> | keys rotate|list";

const [command, identifier, ...rest] = process.argv.slice(2);
const needsUser = command === "grant" || command === "revoke";
const needsFolder = command === "backup" || command === "restore";
const keysCommand = command === "keys" && (identifier === "rotate" || identifier === "list");
if (
  !((needsUser || needsFolder || keysCommand) && identifier && rest.length === 0) &&
  !(command === "list" && identifier === undefined)
) {
  console.error(USAGE);
  process.exit(2);
}

const config = loadConfigOrExit();
// First, what it touches: an operator whose shell lacks the server's DATABASE_URL (or `.env`)
// sees the wrong database here, before anything is changed.
console.log(describeTargets(config));
// Before the database is opened: a restore needs DATA_DIR empty, with no database file made yet.
if (needsFolder) process.exit(await backupCommand(command, identifier!));
makeDataDirPrivate(config.dataDir);
const database = await openDatabase(config.databaseUrl, { migrate: true }).catch((error: unknown) =>
  fail(`cannot open the database (${describeDatabase(config.databaseUrl)}): ${messageOf(error)}`),
);
const store = await openStore(config, database.db, systemClock).catch(async (error: unknown) => {
  await database.close();
  return fail(`cannot open ${describeStore(config)}: ${messageOf(error)}`);
});
const deps = { db: database.db, store, clock: systemClock };

const describe = (user: StoreUser) => `${user.login} <${user.email}> (${user.uuid})`;
const storeAdmin = (user: StoreUser | null) =>
  user !== null && rolesFor(user.storeRoles, false).includes("admin");

let exitCode = 0;
try {
  if (command === "keys") {
    const keyDeps = {
      db: database.db,
      clock: systemClock,
      config,
      // As the server resolves it (JWT_SECRET, or the one generated into DATA_DIR): the key that
      // seals the private halves is derived from it.
      jwtSecret: resolveJwtSecret(
        config,
        createLogger("warn", (line) => console.error(line)),
      ),
    };
    if (identifier === "rotate") {
      const key = await rotateEntitlementKey(keyDeps, cliSource);
      console.log(`published ${describeKey(key)}`);
    } else {
      const keys = await listEntitlementKeyStates(keyDeps);
      if (keys.length === 0) console.log("no entitlement keys yet (the first is made when one is needed)");
      for (const key of keys) console.log(describeKey(key));
    }
  } else if (command === "grant") {
    const { user, changed } = await grantAdmin(deps, cliSource, identifier!);
    console.log(`${changed ? "granted admin to" : "already granted:"} ${describe(user!)}`);
  } else if (command === "revoke") {
    const { user, userUuid, changed } = await revokeAdmin(deps, cliSource, identifier!);
    console.log(
      `${changed ? "revoked the admin grant of" : "had no admin grant:"} ${user ? describe(user) : userUuid}`,
    );
    if (storeAdmin(user))
      console.log("note: still an admin, by the store's role (administrator or shop manager)");
  } else {
    const admins = await listAdmins(deps);
    if (admins.length === 0)
      console.log("no admin grants (the store's administrators and shop managers are admins too)");
    for (const { user, userUuid, grantedAt } of admins) {
      const who = user ? describe(user) : `${userUuid} (no longer in ${describeStore(config)})`;
      console.log(`${who}  granted ${grantedAt.toISOString()}`);
    }
  }
} catch (error) {
  exitCode = 1;
  if (error instanceof UnknownUserError) {
    // Where it looked: the store of this environment, and for a uuid the grants of this database.
    const grants =
      command === "revoke" && isUuid(error.identifier.trim())
        ? `, nor an admin grant for it in the database (${describeDatabase(config.databaseUrl)})`
        : "";
    problem(`no user "${error.identifier}" in ${describeStore(config)}${grants}`);
  } else if (error instanceof AppError) problem(error.message);
  else problem(`failed: ${messageOf(error)}`);
} finally {
  await store.close();
  await database.close();
}
process.exit(exitCode);

/** A key as `keys list` shows it: generation, kid, state and times; never the key itself. */
function describeKey({ row, state, retiredAt, publishedUntil }: KeyState): string {
  const times = [
    `created ${row.createdAt.toISOString()}`,
    `signs from ${row.signsFrom.toISOString()}`,
    ...(retiredAt ? [`retired ${retiredAt.toISOString()}`] : []),
    ...(publishedUntil ? [`published until ${publishedUntil.toISOString()}`] : []),
  ];
  return `key ${row.id}  ${row.kid}  ${state}  ${times.join("  ")}`;
}

/** One error line, control characters shown escaped (an identifier is the operator's typing). */
function problem(message: string): void {
  console.error(forTerminal(`bookdist admin: ${message}`));
}

function fail(message: string): never {
  problem(message);
  process.exit(1);
}

/** A driver's message, with no secret of this configuration in it. */
function messageOf(error: unknown): string {
  return withoutSecrets(error instanceof Error ? error.message : String(error), config);
}

async function backupCommand(command: "backup" | "restore", folder: string): Promise<number> {
  // What either writes is this service's alone (umask 077), as the server's own files are.
  process.umask(0o077);
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  // A backup folder may come from elsewhere: its manifest's fields, the names in it (which an
  // error may quote) and the paths are printed with control characters made visible.
  const say = (line: string) => console.log(forTerminal(line));
  try {
    if (command === "backup") {
      const report = await backup(config, folder, packageJson.version);
      // The backup is made whatever the log can say of it: a database out of reach (Postgres,
      // which this backup does not copy) is a note, not a failed backup.
      const unrecorded = await recordBackup(report).then(
        () => null,
        (error: unknown) => messageOf(error),
      );
      for (const note of report.notes) say(`note: ${note}`);
      if (unrecorded) say(`note: the audit log could not record this backup: ${unrecorded}`);
      say(
        `backed up ${report.database === "sqlite" ? "the database, " : ""}${report.blobs} blobs (${report.blobBytes} bytes)${report.jwtSecret ? " and the jwt-secret" : ""} to ${folder} in ${seconds()} s`,
      );
    } else {
      const { manifest, notes } = await restore(config, folder);
      for (const note of notes) say(`note: ${note}`);
      say(
        `restored the backup of ${manifest.createdAt} (version ${manifest.version}) into ${config.dataDir} in ${seconds()} s; start the server there`,
      );
    }
    return 0;
  } catch (error) {
    const message = messageOf(error);
    console.error(
      forTerminal(
        `bookdist admin: ${command} failed: ${error instanceof BackupError ? "" : "unexpected: "}${message}`,
      ),
    );
    return 1;
  }
}

/**
 * The backup as an audit event of the database it copied (README "Audit log"), written once the
 * backup is complete (so the copy does not hold it). Named by the backup's time, not its folder.
 */
async function recordBackup(report: BackupReport): Promise<void> {
  // Migrated as for `grant`: this command is the deployment's own version.
  const database = await openDatabase(config.databaseUrl, { migrate: true });
  try {
    await recordAuditAlone(database.db, {
      by: cliSource,
      at: new Date(),
      action: "backup.create",
      target: { type: "backup", id: report.createdAt },
      changes: {
        database: [null, report.database],
        blobs: [null, report.blobs],
        // Named so that no field reads as a secret or file bytes (README "Audit log"): the total
        // size of the blobs, and whether the backup holds the generated JWT key file.
        blobSize: [null, report.blobBytes],
        jwtKeyFile: [null, report.jwtSecret],
      },
    });
  } finally {
    await database.close();
  }
}
