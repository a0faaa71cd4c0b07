import type { ListWindow, Page } from "../lib/sort-and-page";

/**
 * A list's rows and total: a whole list is its own total, so only a page pays for a count
 * (run beside the rows).
 */
export async function pageOf<Row>(
  window: ListWindow,
  rows: () => Promise<Row[]>,
  count: () => Promise<number>,
): Promise<Page<Row>> {
  if (window.limit === undefined) {
    const all = await rows();
    return { rows: all, total: all.length };
  }
  const [slice, total] = await Promise.all([rows(), count()]);
  return { rows: slice, total };
}
