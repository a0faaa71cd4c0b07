// What `bun run admin restore` calls once the restored database is complete: the copy gets a
// deployment id of its own (README "Backups"), so that its blob cleanup never removes a file or
// object its original wrote, even on the same bucket and prefix. Migrates first: a backup taken
// before deployment ids existed has no row to renew yet.
import { Database as SqliteConnection } from "bun:sqlite";
import { rmSync } from "node:fs";
import { isPostgresUrl, openDatabase, sqlitePathFromUrl } from "../db/client";
import { SQLITE_BUSY_TIMEOUT_MS } from "../db/migration-lock";
import { renewDeploymentRow } from "../repositories/deployment";
import { cliSource, recordAudit } from "../services/audit";

/**
 * Renews the id in a process of its own: bun:sqlite defers closing a connection until the ORM's
 * cached statements are collected, so in this process the staged file would stay open (and its
 * write-ahead log unmerged) while restore renames it into place. The child's exit closes
 * everything; the file is then settled here.
 */
export async function renewDeploymentId(databaseUrl: string, backupCreatedAt: string): Promise<string> {
  const child = Bun.spawn([process.execPath, import.meta.path, databaseUrl, backupCreatedAt], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (exitCode !== 0)
    throw new Error(`the restored database's deployment id was not renewed: ${lastLine(err)}`);
  if (!isPostgresUrl(databaseUrl)) settleSqliteFile(sqlitePathFromUrl(databaseUrl));
  return out.trim();
}

const lastLine = (text: string) => text.trim().split("\n").at(-1) ?? "";

/** The restore is an audit event of the restored database, in the transaction that renews its id. */
async function renewInThisProcess(databaseUrl: string, backupCreatedAt: string): Promise<string> {
  const database = await openDatabase(databaseUrl, { migrate: true });
  const now = new Date();
  try {
    return await renewDeploymentRow(database.db, now, (tx, { originalId, id }) =>
      recordAudit(tx, {
        by: cliSource,
        at: now,
        action: "backup.restore",
        target: { type: "deployment", id },
        changes: { deploymentId: [originalId, id], backupCreatedAt: [null, backupCreatedAt] },
      }),
    );
  } finally {
    await database.close();
  }
}

/**
 * A staged SQLite file is renamed into place alone: its write-ahead log is folded back into it
 * (the server turns WAL on again at start) and the migration's lock file beside it removed, so
 * that nothing of the restore is left behind or lost in a file the rename does not move.
 */
function settleSqliteFile(path: string): void {
  const connection = new SqliteConnection(path);
  try {
    connection.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    connection.exec("PRAGMA journal_mode = DELETE");
  } finally {
    connection.close();
  }
  rmSync(`${path}.migration-lock`, { force: true });
}

if (import.meta.main) {
  const [url, backupCreatedAt] = process.argv.slice(2);
  if (!url || !backupCreatedAt)
    throw new Error("usage: renew-deployment-id.ts <database url> <the backup's createdAt>");
  console.log(await renewInThisProcess(url, backupCreatedAt));
  process.exit(0);
}
