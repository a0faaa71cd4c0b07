// Type-level test, checked by `bun run typecheck` (never run): the rows of a prepared statement
// (db/prepared.ts) carry the type Drizzle gives the query's own rows, not `never` or `any`.
import { eq, sql } from "drizzle-orm";
import type { Database } from "#db";
import { prepareRows, rowsOf } from "../../src/db/prepared";

declare const db: Database;
const { userSession } = db.tables;
const query = db.orm
  .select()
  .from(userSession)
  .where(eq(userSession.id, sql.placeholder("id")));
const session = prepareRows(query, "type_test", userSession);

export async function rowsAreTyped(): Promise<void> {
  const [row] = await rowsOf(db, session, { id: "x" });
  if (row === undefined) return;
  const expiresAt: Date = row.expiresAt;
  const isAdmin: boolean = row.isAdmin;
  // @ts-expect-error a column the table does not have
  const missing = row.noSuchColumn;
  // @ts-expect-error a Date is not a string
  const wrong: string = row.expiresAt;
  void [expiresAt, isAdmin, missing, wrong];
}
