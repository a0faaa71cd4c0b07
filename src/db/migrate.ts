import { openDatabase } from "./client";

/** Applies pending migrations to the database at `url` and closes it again. */
export async function migrateDatabase(url: string): Promise<void> {
  const handle = await openDatabase(url, { migrate: true });
  await handle.close();
}
