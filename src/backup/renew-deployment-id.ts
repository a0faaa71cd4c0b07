// What `bun run admin restore` calls once the restored database is complete: the copy gets a
// deployment id of its own (README "Backups"), so that its blob cleanup never removes a file or
// object its original wrote, even on the same bucket and prefix. Migrates first: a backup taken
// before deployment ids existed has no row to renew yet.
import { openDatabase } from "../db/client";
import { renewDeploymentRow } from "../repositories/deployment";

export async function renewDeploymentId(databaseUrl: string): Promise<string> {
  const database = await openDatabase(databaseUrl, { migrate: true });
  try {
    return await renewDeploymentRow(database.db, new Date());
  } finally {
    await database.close();
  }
}
