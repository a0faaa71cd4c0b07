// The dashboard's per-day counts (README "Console"): rows of daily_count, summed over their slots.
// Activations and redeemed codes are counted by the triggers of migrations 0017 and 0021; downloads here.
import { and, eq, gte, ne, sql, sum } from "drizzle-orm";
import type { Database } from "#db";
import { countedRows } from "../db/row-counts";
import { queuedWrite } from "../db/transaction";

/** Slots a counter is spread over, so concurrent writers rarely wait on one row (as row_count's). */
const SLOTS = 8;

/** Each metric's count per day from `fromDay` (YYYY-MM-DD) on: at most days × metrics × SLOTS rows read. */
export async function dailyCounts(
  db: Database,
  fromDay: string,
): Promise<{ day: string; metric: string; n: number }[]> {
  const { dailyCount: d } = db.tables;
  const rows = await db.orm
    .select({ day: d.day, metric: d.metric, n: sum(d.n) })
    .from(d)
    .where(and(gte(d.day, fromDay), ne(d.day, "")))
    .groupBy(d.day, d.metric);
  return rows.map((row) => ({ day: row.day, metric: row.metric, n: Number(row.n ?? 0) }));
}

/** The running totals (day ""), by metric. */
export async function runningTotals(db: Database): Promise<Record<string, number>> {
  const { dailyCount: d } = db.tables;
  const rows = await db.orm
    .select({ metric: d.metric, n: sum(d.n) })
    .from(d)
    .where(eq(d.day, ""))
    .groupBy(d.metric);
  return Object.fromEntries(rows.map((row) => [row.metric, Number(row.n ?? 0)]));
}

/**
 * The activations of one source now (day "", metric `activation.<source>`): exact, as the
 * triggers of migrations 0017 and 0021 move it with every insert, delete and change of source in
 * the same transaction, and as cheap at five million activations as at five.
 */
export async function activationsOfSource(
  db: Database,
  source: "code" | "order" | "manual",
): Promise<number> {
  const { dailyCount: d } = db.tables;
  const [row] = await db.orm
    .select({ n: sum(d.n) })
    .from(d)
    .where(and(eq(d.day, ""), eq(d.metric, `activation.${source}`)));
  return Number(row?.n ?? 0);
}

/** Adds `n` to `metric` on `day`, in a transaction of its own. */
export async function addToDailyCount(db: Database, day: string, metric: string, n: number): Promise<void> {
  const d = db.tables.dailyCount;
  const slot = Math.floor(Math.random() * SLOTS);
  await queuedWrite(db, (tx) =>
    tx.orm
      .insert(db.tables.dailyCount)
      .values({ day, metric, slot, n })
      .onConflictDoUpdate({ target: [d.day, d.metric, d.slot], set: { n: sql`${d.n} + ${n}` } }),
  );
}

/** The whole-table counts the dashboard shows, from row_count (migration 0004). */
export async function dashboardCounters(
  db: Database,
): Promise<{ books: number; codes: number; activations: number }> {
  const [books, codes, activations] = await Promise.all([
    countedRows(db, db.tables.book),
    countedRows(db, db.tables.activationQrCode),
    countedRows(db, db.tables.activation),
  ]);
  return { books, codes, activations };
}
