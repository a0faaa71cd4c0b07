// The audit log's table (README "Audit log"): one row per change, inserted in the change's own
// transaction by services/audit.ts; read newest first with the filters of `listAuditEvents`; the
// old rows deleted by the cleanup job in bounded slices.
import { and, eq, gte, inArray, lt, lte, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareNamed } from "../db/prepared";
import { countRows, findById, listRows } from "../db/rows";
import { queuedWrite } from "../db/transaction";
import type { ListWindow } from "../lib/list-window";

export type AuditEventRow = Database["tables"]["auditEvent"]["$inferSelect"];
export type AuditEventFields = Omit<AuditEventRow, "id">;

export const auditEventSortFields = ["id", "at"] as const;
export type AuditEventSortField = (typeof auditEventSortFields)[number];

export interface AuditEventFilter {
  /** The actor's uuid (lower case). */
  actorUuid?: string | undefined;
  /** The actor's e-mail address (lower case). */
  actorEmail?: string | undefined;
  /** An exact action, or a prefix (`book.` for `book.*`). */
  action?: string | undefined;
  actionPrefix?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

/**
 * The character after `.` in code-point order: `action >= 'book.' AND action < 'book/'` is the
 * prefix as a range both databases read from the index on action (LIKE is case-insensitive on
 * SQLite and would not use it).
 */
const AFTER_DOT = String.fromCharCode(".".charCodeAt(0) + 1);

function whereOf(db: Database, filter: AuditEventFilter): SQL | undefined {
  const { auditEvent: t } = db.tables;
  const terms: (SQL | undefined)[] = [];
  // One column each, never an OR of both: each is read from its own index in the list's order.
  if (filter.actorUuid !== undefined) terms.push(eq(t.actorUuid, filter.actorUuid));
  if (filter.actorEmail !== undefined) terms.push(eq(t.actorEmail, filter.actorEmail));
  if (filter.action !== undefined) terms.push(eq(t.action, filter.action));
  if (filter.actionPrefix !== undefined) {
    const stem = filter.actionPrefix.slice(0, -1);
    terms.push(and(gte(t.action, filter.actionPrefix), lt(t.action, `${stem}${AFTER_DOT}`)));
  }
  if (filter.targetType !== undefined) terms.push(eq(t.targetType, filter.targetType));
  if (filter.targetId !== undefined) terms.push(eq(t.targetId, filter.targetId));
  if (filter.from !== undefined) terms.push(gte(t.at, filter.from));
  if (filter.to !== undefined) terms.push(lte(t.at, filter.to));
  const present = terms.filter((term): term is SQL => term !== undefined);
  return present.length === 0 ? undefined : and(...present);
}

export function listAuditEvents(
  db: Database,
  window: ListWindow<AuditEventSortField>,
  filter: AuditEventFilter = {},
  after?: AuditEventRow,
): Promise<AuditEventRow[]> {
  return listRows(db, db.tables.auditEvent, window, whereOf(db, filter), after);
}

/** A whole-log count from its counter row (migration 0008's triggers); a filtered one by index. */
export function countAuditEvents(db: Database, filter: AuditEventFilter = {}): Promise<number> {
  return countRows(db, db.tables.auditEvent, whereOf(db, filter));
}

export function findAuditEvent(db: Database, id: number): Promise<AuditEventRow | undefined> {
  return findById(db, db.tables.auditEvent, id);
}

/**
 * The event's INSERT, prepared once per query builder (db/prepared.ts): every admin write runs it,
 * and building it anew each time cost three times its execution (bench/README.md, Audit log).
 */
const preparedInsert = preparedPer((db) => {
  const value = (name: keyof AuditEventFields) => sql.placeholder(name);
  const query = db.orm.insert(db.tables.auditEvent).values({
    at: value("at"),
    actorUuid: value("actorUuid"),
    actorEmail: value("actorEmail"),
    actorVia: value("actorVia"),
    action: value("action"),
    targetType: value("targetType"),
    targetId: value("targetId"),
    changes: value("changes"),
    requestId: value("requestId"),
    client: value("client"),
  });
  return prepareNamed(query, "insert_audit_event");
});

/** One INSERT without RETURNING: the event is written, never read back, in the change's transaction. */
export async function insertAuditEvent(db: Database, fields: AuditEventFields): Promise<void> {
  await queuedWrite(db, async (tx) => {
    // Awaited on either dialect: SQLite's result runs when awaited, Postgres's is a promise.
    await preparedInsert(tx).execute({ ...fields });
  });
}

/** Many events in one INSERT (the bench's seeding; a backfill). */
export async function insertAuditEvents(db: Database, rows: AuditEventFields[]): Promise<void> {
  if (rows.length === 0) return;
  await queuedWrite(db, async (tx) => {
    await tx.orm.insert(tx.tables.auditEvent).values(rows);
  });
}

/**
 * Deletes at most `limit` events older than `before`, the oldest first (read by the index on
 * `at`), in one short statement; answers how many went. The cleanup job calls it again until
 * fewer than `limit` go, a turn of the loop between slices.
 */
export async function deleteAuditEventsBefore(db: Database, before: Date, limit: number): Promise<number> {
  const { auditEvent: t } = db.tables;
  const ids = await db.orm
    .select({ id: t.id })
    .from(t)
    .where(lt(t.at, before))
    .orderBy(t.at, t.id)
    .limit(limit);
  if (ids.length === 0) return 0;
  const deleted = await queuedWrite(db, (tx) =>
    tx.orm
      .delete(tx.tables.auditEvent)
      .where(
        inArray(
          tx.tables.auditEvent.id,
          ids.map((row) => row.id),
        ),
      )
      .returning({ id: tx.tables.auditEvent.id }),
  );
  return deleted.length;
}
