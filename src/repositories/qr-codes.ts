import { and, eq, gt, isNull, lt, or, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { countRows, findById, listRows, preparedFindBy, updateById } from "../db/rows";
import { queuedWrite } from "../db/transaction";
import type { ListWindow } from "../lib/list-window";

export type QrCodeRow = Database["tables"]["activationQrCode"]["$inferSelect"];
export type NewQrCode = Pick<
  QrCodeRow,
  "bookId" | "code" | "enabled" | "maxActivations" | "label" | "expiresAt" | "batchId"
>;

/**
 * Rows per INSERT: a row binds up to 10 parameters, so 500 rows stay well under the parameter
 * limits of a statement (32,766 in the SQLite Bun bundles, 65,535 in Postgres).
 */
const INSERT_CHUNK = 500;

/** Which codes a list or count covers: all, one book's, and optionally only never-redeemed ones. */
export interface QrCodeFilter {
  bookId?: number;
  /** Only codes no activation was ever made from (deleting the activation does not undo that). */
  unused?: boolean;
}

function whereOf(db: Database, filter: QrCodeFilter): SQL | undefined {
  const { activationQrCode: q } = db.tables;
  return and(
    filter.bookId === undefined ? undefined : eq(q.bookId, filter.bookId),
    filter.unused ? isNull(q.firstRedeemedAt) : undefined,
  );
}

export const qrCodeSortFields = ["id", "bookId", "createdAt", "enabled"] as const;
export type QrCodeSortField = (typeof qrCodeSortFields)[number];

/**
 * The codes `filter` covers, in the window's order; without a window, all of them by id. `after`:
 * the previous chunk's last code (db/rows.ts listRows).
 */
export function listQrCodes(
  db: Database,
  filter: QrCodeFilter,
  window: ListWindow<QrCodeSortField> = { sort: [] },
  after?: QrCodeRow,
): Promise<QrCodeRow[]> {
  const { activationQrCode: q } = db.tables;
  const { bookId, ...rest } = filter;
  // A book's codes by the (book_id, field, id) indexes, whatever the planner thinks of the book.
  const book = bookId === undefined ? undefined : { column: q.bookId, value: bookId };
  return listRows(db, q, window, whereOf(db, rest), after, book);
}

export function countQrCodes(db: Database, filter: QrCodeFilter = {}): Promise<number> {
  if (filter.bookId !== undefined && !filter.unused) return countQrCodesOfBook(db, filter.bookId);
  return countRows(db, db.tables.activationQrCode, whereOf(db, filter));
}

/** A book's codes, from the counter its triggers keep (migration 0004); no row: none. */
async function countQrCodesOfBook(db: Database, bookId: number): Promise<number> {
  const { bookQrCodeCount } = db.tables;
  const [row] = await db.orm
    .select({ n: bookQrCodeCount.n })
    .from(bookQrCodeCount)
    .where(eq(bookQrCodeCount.bookId, bookId));
  return Number(row?.n ?? 0);
}

export function findQrCode(db: Database, id: number): Promise<QrCodeRow | undefined> {
  return findById(db, db.tables.activationQrCode, id);
}

// Redemption's first read: prepared, built only once.
const qrCodeByCode = preparedFindBy("activationQrCode", "code", "qr_code_by_code");

export function findQrCodeByCode(db: Database, code: string): Promise<QrCodeRow | undefined> {
  return qrCodeByCode(db, code);
}

/** The columns a new code is given, in the order a chunk binds them row after row. */
const NEW_CODE_COLUMNS = [
  "bookId",
  "batchId",
  "code",
  "enabled",
  "maxActivations",
  "activationCount",
  "label",
  "expiresAt",
  "createdAt",
  "updatedAt",
] as const;

/**
 * The INSERT of one full chunk, prepared once per query builder. Building a 500-row INSERT's SQL
 * costs Drizzle more than SQLite takes to run it (about 4 of a 10,000-code batch's 6 ms per chunk
 * on the 2-core VM), and on SQLite a batch's transaction must run in one event-loop turn
 * (db/transaction.ts): prepared, the turn holds the inserts, not their building.
 */
const insertChunkStatement = preparedPer((db) => {
  const { activationQrCode: q } = db.tables;
  const rows = Array.from({ length: INSERT_CHUNK }, (_, row) =>
    Object.fromEntries(
      NEW_CODE_COLUMNS.map((column, index) => {
        const value = sql.placeholder(String(row * NEW_CODE_COLUMNS.length + index));
        // Drizzle encodes a placeholder's value with its column's encoder even when it is null,
        // which a timestamp's cannot take: the nullable one is bound as it is, already encoded.
        return [column, column === "expiresAt" ? sql`${value}` : value];
      }),
    ),
  );
  const query = db.orm
    .insert(q)
    .values(rows as unknown as (typeof q.$inferInsert)[])
    .returning();
  return prepareRows(query, "insert_qr_codes", q);
});

/** Inserts the codes in chunks (call it inside a transaction for all-or-nothing). */
export async function insertQrCodes(db: Database, codes: NewQrCode[], now: Date): Promise<QrCodeRow[]> {
  const inserted: QrCodeRow[] = [];
  for (let start = 0; start < codes.length; start += INSERT_CHUNK) {
    const values = codes
      .slice(start, start + INSERT_CHUNK)
      .map((code) => ({ ...code, activationCount: 0, createdAt: now, updatedAt: now }));
    const rows = await queuedWrite(db, async (tx) => {
      const { activationQrCode: q } = tx.tables;
      if (values.length < INSERT_CHUNK) return tx.orm.insert(q).values(values).returning();
      // The placeholders are named by their position ("0", "1", …), so their values are an array:
      // Drizzle looks each one up by name, and an array answers that as fast as it indexes.
      const placeholders: unknown[] = [];
      for (const value of values) {
        for (const column of NEW_CODE_COLUMNS) {
          const field = value[column] ?? null;
          placeholders.push(
            column === "expiresAt" && field ? q.expiresAt.mapToDriverValue(field as Date) : field,
          );
        }
      }
      return rowsOf(tx, insertChunkStatement(tx), placeholders as unknown as Record<string, unknown>);
    });
    inserted.push(...rows);
  }
  return inserted;
}

export function setQrCodeEnabled(
  db: Database,
  id: number,
  enabled: boolean,
  now: Date,
): Promise<QrCodeRow | undefined> {
  return updateById(db, db.tables.activationQrCode, id, { enabled, updatedAt: now });
}

/**
 * Takes one activation from the code, if it is enabled, not expired and not used up: a single conditional
 * UPDATE, so the database decides between racing redemptions (the row lock on Postgres, the one
 * writer on SQLite). The same UPDATE marks the code redeemed the first time. False when nothing
 * was taken.
 */
const consumeActivationStatement = preparedPer((db) => {
  const { activationQrCode: q } = db.tables;
  // Params around the placeholder let the columns encode the Date they are given (ms on SQLite).
  const now = sql`${sql.param(sql.placeholder("now"), q.updatedAt)}`;
  const query = db.orm
    .update(q)
    .set({
      activationCount: sql`${q.activationCount} + 1`,
      firstRedeemedAt: sql`COALESCE(${q.firstRedeemedAt}, ${now})`,
      updatedAt: now,
    })
    .where(
      and(
        eq(q.id, sql.placeholder("id")),
        eq(q.enabled, true),
        or(isNull(q.expiresAt), gt(q.expiresAt, now)),
        lt(q.activationCount, q.maxActivations),
      ),
    )
    .returning({ id: q.id });
  return prepareRows(query, "consume_activation", { id: q.id });
});

export async function consumeActivation(db: Database, id: number, now: Date): Promise<boolean> {
  const rows = await queuedWrite(db, async (tx) => rowsOf(tx, consumeActivationStatement(tx), { id, now }));
  return rows.length === 1;
}

/** Gives an activation back to the code (its activation was deleted). */
export async function releaseActivation(db: Database, id: number, now: Date): Promise<void> {
  const { activationQrCode: q } = db.tables;
  await queuedWrite(db, (tx) =>
    tx.orm
      .update(q)
      .set({ activationCount: sql`${q.activationCount} - 1`, updatedAt: now })
      .where(and(eq(q.id, id), gt(q.activationCount, 0))),
  );
}
