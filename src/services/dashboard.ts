// The console's dashboard figures (README "Console"): every number from a counter row (row_count,
// migration 0004) or a per-day rollup (daily_count, migration 0017), so the page costs the same
// at five million activations as at five. Downloads are counted here as the access log sees them.
// Active readers: the users with an API session made or seen, or a device token made or used, in
// the last ACTIVE_DAYS days (UTC) — the sum of that many rows of "reader.last-active" (migration
// 0019: each user counted on their last active day only), not a scan of sessions or activations.
import type { Database } from "#db";
import type { Logger } from "../lib/logger";
import { addToDailyCount, dailyCounts, dashboardCounters, runningTotals } from "../repositories/daily-counts";

export const ACTIVATION_SOURCES = ["code", "order", "manual"] as const;
export type ActivationSource = (typeof ACTIVATION_SOURCES)[number];

export interface DaySeries {
  /** The days, oldest first (YYYY-MM-DD, UTC), today last. */
  days: string[];
  /** Activations made per day by source, aligned with `days`. */
  activations: Record<ActivationSource, number[]>;
  downloads: number[];
}

export interface DashboardFigures {
  books: number;
  codesPrinted: number;
  codesRedeemed: number;
  activations: number;
  activationsBySource: Record<ActivationSource, number>;
  /** Readers active (an app signed in or used) in the last ACTIVE_DAYS days, today included. */
  activeReaders: number;
  series: DaySeries;
}

/** The window of "active readers". */
export const ACTIVE_DAYS = 30;

const DAY_MS = 86_400_000;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);

export async function dashboardFigures(db: Database, now: Date, days: number): Promise<DashboardFigures> {
  const dayList = Array.from({ length: days }, (_, i) =>
    dayOf(new Date(now.getTime() - (days - 1 - i) * DAY_MS)),
  );
  const activeFrom = dayOf(new Date(now.getTime() - (ACTIVE_DAYS - 1) * DAY_MS));
  const [{ books, codes: codesPrinted, activations }, totals, perDay] = await Promise.all([
    dashboardCounters(db),
    runningTotals(db),
    dailyCounts(db, [dayList[0] ?? dayOf(now), activeFrom].sort()[0] ?? activeFrom),
  ]);
  const index = new Map(dayList.map((day, i) => [day, i]));
  const series: DaySeries = {
    days: dayList,
    activations: { code: dayList.map(() => 0), order: dayList.map(() => 0), manual: dayList.map(() => 0) },
    downloads: dayList.map(() => 0),
  };
  let activeReaders = 0;
  for (const { day, metric, n } of perDay) {
    if (metric === "reader.last-active" && day >= activeFrom) activeReaders += n;
    const i = index.get(day);
    if (i === undefined) continue;
    if (metric === "download") series.downloads[i] = n;
    const source = metric.startsWith("activation.") ? (metric.slice(11) as ActivationSource) : undefined;
    if (source && source in series.activations) series.activations[source][i] = n;
  }
  return {
    books,
    codesPrinted,
    codesRedeemed: totals["code.redeemed"] ?? 0,
    activations,
    activationsBySource: {
      code: totals["activation.code"] ?? 0,
      order: totals["activation.order"] ?? 0,
      manual: totals["activation.manual"] ?? 0,
    },
    activeReaders,
    series,
  };
}

/**
 * One more download today (a book's archive or an APK, sent whole or from its first byte). A
 * failed write (a busy database) loses one count of a chart, never the download: logged, not thrown.
 */
export function countDownload(db: Database, logger: Logger, now: Date): void {
  addToDailyCount(db, dayOf(now), "download", 1).catch((error: unknown) => {
    logger.warn("download not counted on the dashboard", { reason: String(error) });
  });
}
