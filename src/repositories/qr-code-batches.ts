import { type AnyColumn, and, asc, desc, eq, gt, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { byId, orderByTerms, paged, readAfter, sortTermsOf } from "../db/order-by";
import { countRows, insertRow } from "../db/rows";
import { queuedWrite } from "../db/transaction";
import type { ListWindow } from "../lib/list-window";
import type { QrCodeRow } from "./qr-codes";

export type QrCodeBatchRow = Database["tables"]["qrCodeBatch"]["$inferSelect"];
export type NewQrCodeBatch = Pick<QrCodeBatchRow, "bookId" | "label" | "maxActivations" | "expiresAt">;

export const qrCodeBatchSortFields = ["id", "createdAt"] as const;
export type QrCodeBatchSortField = (typeof qrCodeBatchSortFields)[number];

/** A batch with what its codes add up to. */
export interface QrCodeBatchWithCounts extends QrCodeBatchRow {
  /** Codes made in the batch. */
  codes: number;
  /** Codes at least one activation has been made from. */
  redeemed: number;
  /** Codes no activation has been made from. */
  unused: number;
  /** Codes that are switched off. */
  disabled: number;
}

export function insertQrCodeBatch(db: Database, batch: NewQrCodeBatch, now: Date): Promise<QrCodeBatchRow> {
  return insertRow(db, db.tables.qrCodeBatch, { ...batch, createdAt: now });
}

/**
 * Batches with their counts in one statement: each count the sum of the batch's counter rows
 * (migration 0020: one on SQLite, up to eight slots on Postgres), read by key for each batch of
 * the page, so a run of 200,000 codes costs what a run of one does (Postgres answers sums as
 * strings, so they are read as numbers here).
 */
function batchesWithCounts(db: Database, where: SQL | undefined) {
  const { qrCodeBatch: b, qrCodeBatchCount: c } = db.tables;
  const total = (column: AnyColumn) =>
    sql<string | number | null>`(select coalesce(sum(${column}), 0) from ${c} where ${c.batchId} = ${b.id})`;
  return db.orm
    .select({
      id: b.id,
      bookId: b.bookId,
      label: b.label,
      maxActivations: b.maxActivations,
      expiresAt: b.expiresAt,
      createdAt: b.createdAt,
      codes: total(c.codes),
      redeemed: total(c.redeemed),
      disabled: total(c.disabled),
    })
    .from(b)
    .where(where)
    .$dynamic();
}

type CountedRow = Omit<QrCodeBatchWithCounts, "codes" | "redeemed" | "unused" | "disabled"> & {
  codes: string | number | null;
  redeemed: string | number | null;
  disabled: string | number | null;
};

function withCounts(row: CountedRow): QrCodeBatchWithCounts {
  const codes = Number(row.codes ?? 0);
  const redeemed = Number(row.redeemed ?? 0);
  return { ...row, codes, redeemed, unused: codes - redeemed, disabled: Number(row.disabled ?? 0) };
}

export async function findQrCodeBatch(db: Database, id: number): Promise<QrCodeBatchWithCounts | undefined> {
  const [row] = await batchesWithCounts(db, eq(db.tables.qrCodeBatch.id, id));
  return row ? withCounts(row) : undefined;
}

/** A book's batches; `after`: the previous chunk's last batch (db/order-by.ts readAfter). */
export async function listQrCodeBatchesOfBook(
  db: Database,
  bookId: number,
  window: ListWindow<QrCodeBatchSortField>,
  after?: QrCodeBatchWithCounts,
): Promise<QrCodeBatchWithCounts[]> {
  const { qrCodeBatch } = db.tables;
  const terms = sortTermsOf<QrCodeBatchSortField, QrCodeBatchWithCounts>(
    window,
    qrCodeBatch,
    byId(qrCodeBatch.id),
  );
  const orderBy = orderByTerms(terms);
  const read = async (keyset: SQL | undefined, slice: Pick<ListWindow, "limit" | "offset">) => {
    const query = batchesWithCounts(db, and(eq(qrCodeBatch.bookId, bookId), keyset)).orderBy(...orderBy);
    return (await paged(query, slice)).map(withCounts);
  };
  if (after === undefined) return read(undefined, window);
  return readAfter(terms, after, db.dialect, window.limit, (keyset, limit) => read(keyset, { limit }));
}

/**
 * A page of all batches (or one book's), newest first, with their counts: the page's ids are read
 * first (the primary key, or qr_code_batch's book index), so the codes joined are only those of
 * the `limit` batches shown.
 */
export async function listQrCodeBatchesPage(
  db: Database,
  limit: number,
  offset: number,
  bookId?: number,
): Promise<QrCodeBatchWithCounts[]> {
  const { qrCodeBatch } = db.tables;
  const ids = await db.orm
    .select({ id: qrCodeBatch.id })
    .from(qrCodeBatch)
    .where(bookId === undefined ? undefined : eq(qrCodeBatch.bookId, bookId))
    .orderBy(desc(qrCodeBatch.id))
    .limit(limit)
    .offset(offset);
  if (ids.length === 0) return [];
  const rows = await batchesWithCounts(
    db,
    inArray(
      qrCodeBatch.id,
      ids.map((row) => row.id),
    ),
  ).orderBy(desc(qrCodeBatch.id));
  return rows.map(withCounts);
}

export function countQrCodeBatchesOfBook(db: Database, bookId: number): Promise<number> {
  const { qrCodeBatch } = db.tables;
  return countRows(db, qrCodeBatch, eq(qrCodeBatch.bookId, bookId));
}

/** Switches every code of the batch in one UPDATE; the number of codes it touched. */
export async function setQrCodeBatchEnabled(
  db: Database,
  batchId: number,
  enabled: boolean,
  now: Date,
): Promise<number> {
  const { activationQrCode: q } = db.tables;
  const rows = await queuedWrite(db, (tx) =>
    tx.orm.update(q).set({ enabled, updatedAt: now }).where(eq(q.batchId, batchId)).returning({ id: q.id }),
  );
  return rows.length;
}

/** The batch's codes after `afterId` in id order: one page of a keyset walk. */
export async function qrCodesOfBatchAfter(
  db: Database,
  batchId: number,
  afterId: number,
  limit: number,
): Promise<QrCodeRow[]> {
  const { activationQrCode: q } = db.tables;
  return db.orm
    .select()
    .from(q)
    .where(and(eq(q.batchId, batchId), gt(q.id, afterId)))
    .orderBy(asc(q.id))
    .limit(limit);
}
