import { openDatabase } from "./client";

/**
 * Applies pending migrations to the database at `url` and closes it again; under the same
 * database lock as start-up (db/migration-lock.ts), so it is safe beside running instances.
 */
export async function migrateDatabase(url: string): Promise<void> {
  const handle = await openDatabase(url, { migrate: true });
  await handle.close();
}
