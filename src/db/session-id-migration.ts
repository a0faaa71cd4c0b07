// Sessions opened before ids were stored as digests (lib/session-id.ts) hold their raw id. Neither
// SQL dialect can hash them alike (SQLite has no sha256()), so this step runs in code after the
// schema migrations, under the same lock (migration-lock.ts): every raw id becomes its digest,
// so the tokens already given out keep working (nobody is logged out) and the database names
// no session a token could be made for. It changes only rows that are not digests yet, so it is
// idempotent: each start runs it, and finds nothing once done (a session an instance of the old
// version opened meanwhile is hashed at the next start).
import type { SQL } from "bun";
import { sql } from "drizzle-orm";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { isSessionIdHash, sessionIdHash } from "../lib/session-id";

/** Raw ids are 36 characters, digests 64: the first filter is SQL's, the exact one ours. */
const RAW_IDS = "SELECT id FROM user_session WHERE length(id) <> 64";

/** SQLite: in one transaction on the migrating connection. Answers how many ids it hashed. */
export function hashRawSessionIdsSqlite(orm: BunSQLiteDatabase<Record<string, unknown>>): number {
  const raw = orm.all<{ id: string }>(sql.raw(RAW_IDS)).filter((row) => !isSessionIdHash(row.id));
  if (raw.length === 0) return 0;
  orm.transaction((tx) => {
    for (const { id } of raw) tx.run(sql`UPDATE user_session SET id = ${sessionIdHash(id)} WHERE id = ${id}`);
  });
  return raw.length;
}

/** Postgres: in one transaction on the connection that holds the migration lock. */
export async function hashRawSessionIdsPostgres(connection: SQL): Promise<number> {
  const rows: { id: string }[] = await connection.unsafe(RAW_IDS);
  const raw = rows.filter((row) => !isSessionIdHash(row.id));
  if (raw.length === 0) return 0;
  await connection.begin(async (tx) => {
    for (const { id } of raw) await tx`UPDATE user_session SET id = ${sessionIdHash(id)} WHERE id = ${id}`;
  });
  return raw.length;
}
