// Whole-table counts read from the counter rows that migration 0004's triggers keep in the same
// transaction as the rows they count: exact, and as cheap at ten million rows as at ten, where
// count(*) reads the whole table (or its smallest index) every time.
import { eq, getTableName, sum, type Table } from "drizzle-orm";
import type { Database } from "#db";

/** The tables whose inserts and deletes the triggers of migration 0004 count. */
export const countedTables = [
  "book",
  "book_version",
  "activation",
  "activation_qr_code",
  "apk",
  "shop_product",
  "audit_event",
] as const;

const counted: ReadonlySet<string> = new Set(countedTables);

/** Whether `table`'s rows are counted by triggers, so countedRows may answer for it. */
export function isCounted(table: Table): boolean {
  return counted.has(getTableName(table));
}

/** The number of rows in `table`, one of countedTables: the sum of its counter's slots. */
export async function countedRows(db: Database, table: Table): Promise<number> {
  const { rowCount } = db.tables;
  const [row] = await db.orm
    .select({ n: sum(rowCount.n) })
    .from(rowCount)
    .where(eq(rowCount.tableName, getTableName(table)));
  return Number(row?.n ?? 0);
}
