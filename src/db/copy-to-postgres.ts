// `bun run db copy --to <postgres url>`: a SQLite deployment's database, copied into an empty
// Postgres database (README "Moving to Postgres"). The SQLite file is opened read-only, in one
// read transaction (a consistent snapshot); the target is migrated first, then filled in one
// transaction, so that a copy that fails half-way leaves it as empty as it was. Memory stays
// bounded: each table is read in keyset pages of PAGE_ROWS rows, and each page is one multi-row
// insert. The counters (row_count, book_qr_code_count, qr_code_batch_count) are not copied: the
// target's triggers (migrations 0004, 0020) count the copied rows as they arrive, so they are what
// the triggers give.
// The dashboard's tables are copied as they are, last: daily_count's downloads are counted by the
// app, not by triggers, so they cannot be recomputed, and reader_activity keeps a reader's last
// active day after their sessions are gone, which a rebuild from the copied sessions would lose
// (and daily_count's active readers would then disagree with it). What the target's triggers
// (migrations 0017 and 0019) made of the rows copied before is deleted first, so nothing is
// counted twice.
// Blobs are not touched: the deployment id is copied, so the blob owner markers stay its own.
import { Database as SqliteConnection } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { SQL } from "bun";
import { asc, type Column, count, type SQL as DrizzleSql, gt, sql } from "drizzle-orm";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import type { PgTable } from "drizzle-orm/pg-core";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { migratePostgres } from "./migration-lock";
import * as pg from "./schema/pg";
import * as lite from "./schema/sqlite";

/** Rows read and inserted at a time: 2,000 × at most 16 columns stays far below Postgres's 65,535 parameters. */
const PAGE_ROWS = 2000;

const journalPath = new URL("../../drizzle/sqlite/meta/_journal.json", import.meta.url).pathname;

export class CopyError extends Error {}

export interface CopyReport {
  copied: Array<{ table: string; rows: number }>;
  counters: Array<{ table: string; n: number }>;
}

type SourceOrm = ReturnType<typeof openSourceOrm>;
type TargetOrm = pg.Orm;
type Key = string | number;

/** One table's copy; the row type stays inside (see `table`). */
interface TableCopy {
  name: string;
  source: SQLiteTable;
  target: PgTable;
  /** Copies every row, page by page; `progress` hears the rows copied so far. Answers how many. */
  copy(source: SourceOrm, target: TargetOrm, progress: (copied: number) => void): Promise<number>;
}

/**
 * A table keyed by one column: `page` reads the PAGE_ROWS rows after a key (`where`) in key
 * order, `insert` writes a page in one statement. Both are written against the table itself, so
 * the rows are the schemas' own types (parity.ts proves both dialects infer the same rows).
 */
function table<R>(
  name: string,
  source: SQLiteTable,
  target: PgTable,
  key: Column,
  page: (orm: SourceOrm, where: DrizzleSql | undefined) => Promise<R[]>,
  keyOf: (row: R) => Key,
  insert: (tx: TargetOrm, rows: R[]) => Promise<unknown>,
): TableCopy {
  return {
    name,
    source,
    target,
    async copy(orm, tx, progress) {
      let copied = 0;
      let after: Key | undefined;
      for (;;) {
        const rows = await page(orm, after === undefined ? undefined : gt(key, after));
        if (rows.length === 0) return copied;
        await insert(tx, rows);
        copied += rows.length;
        progress(copied);
        after = keyOf(rows[rows.length - 1] as R);
        if (rows.length < PAGE_ROWS) return copied;
      }
    },
  };
}

/**
 * A table the target's triggers filled from the rows copied before it (see the top of this file):
 * what they made is deleted, then the source's rows are copied as they are.
 */
function asTheSourceHoldsIt(copy: TableCopy): TableCopy {
  return {
    ...copy,
    async copy(orm, tx, progress) {
      await tx.delete(copy.target);
      return copy.copy(orm, tx, progress);
    },
  };
}

/** daily_count, keyed by (day, metric, slot): a few rows per day and metric. */
function dailyCountCopy(): TableCopy {
  const t = lite.dailyCount;
  const p = pg.dailyCount;
  return {
    name: "daily_count",
    source: t,
    target: p,
    async copy(orm, tx, progress) {
      let copied = 0;
      let after: { day: string; metric: string; slot: number } | undefined;
      for (;;) {
        const rows = await orm
          .select()
          .from(t)
          .where(
            after && sql`(${t.day}, ${t.metric}, ${t.slot}) > (${after.day}, ${after.metric}, ${after.slot})`,
          )
          .orderBy(asc(t.day), asc(t.metric), asc(t.slot))
          .limit(PAGE_ROWS);
        if (rows.length === 0) return copied;
        await tx.insert(p).values(rows);
        copied += rows.length;
        progress(copied);
        after = rows[rows.length - 1];
        if (rows.length < PAGE_ROWS) return copied;
      }
    },
  };
}

function openSourceOrm(connection: SqliteConnection) {
  return drizzleSqlite({ client: connection, schema: lite.tables });
}

/**
 * The tables in dependency order (a row's foreign keys point at rows copied before it). The
 * counters are left out: the triggers count the rows copied (see the top of this file).
 */
function tableCopies(): TableCopy[] {
  const t = lite.tables;
  const p = pg.tables;
  return [
    table(
      "blob",
      t.blob,
      p.blob,
      t.blob.sha256,
      (orm, where) => orm.select().from(t.blob).where(where).orderBy(asc(t.blob.sha256)).limit(PAGE_ROWS),
      (r) => r.sha256,
      (tx, rows) => tx.insert(p.blob).values(rows),
    ),
    table(
      "book",
      t.book,
      p.book,
      t.book.id,
      (orm, where) => orm.select().from(t.book).where(where).orderBy(asc(t.book.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.book).values(rows),
    ),
    table(
      "book_version",
      t.bookVersion,
      p.bookVersion,
      t.bookVersion.id,
      (orm, where) =>
        orm.select().from(t.bookVersion).where(where).orderBy(asc(t.bookVersion.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.bookVersion).values(rows),
    ),
    table(
      "qr_code_batch",
      t.qrCodeBatch,
      p.qrCodeBatch,
      t.qrCodeBatch.id,
      (orm, where) =>
        orm.select().from(t.qrCodeBatch).where(where).orderBy(asc(t.qrCodeBatch.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.qrCodeBatch).values(rows),
    ),
    table(
      "activation_qr_code",
      t.activationQrCode,
      p.activationQrCode,
      t.activationQrCode.id,
      (orm, where) =>
        orm
          .select()
          .from(t.activationQrCode)
          .where(where)
          .orderBy(asc(t.activationQrCode.id))
          .limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.activationQrCode).values(rows),
    ),
    table(
      "activation",
      t.activation,
      p.activation,
      t.activation.id,
      (orm, where) =>
        orm.select().from(t.activation).where(where).orderBy(asc(t.activation.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.activation).values(rows),
    ),
    table(
      "apk",
      t.apk,
      p.apk,
      t.apk.id,
      (orm, where) => orm.select().from(t.apk).where(where).orderBy(asc(t.apk.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.apk).values(rows),
    ),
    table(
      "user_session",
      t.userSession,
      p.userSession,
      t.userSession.id,
      (orm, where) =>
        orm.select().from(t.userSession).where(where).orderBy(asc(t.userSession.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.userSession).values(rows),
    ),
    table(
      "console_session",
      t.consoleSession,
      p.consoleSession,
      t.consoleSession.id,
      (orm, where) =>
        orm.select().from(t.consoleSession).where(where).orderBy(asc(t.consoleSession.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.consoleSession).values(rows),
    ),
    table(
      "device_token",
      t.deviceToken,
      p.deviceToken,
      t.deviceToken.id,
      (orm, where) =>
        orm.select().from(t.deviceToken).where(where).orderBy(asc(t.deviceToken.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.deviceToken).values(rows),
    ),
    table(
      "entitlement_key",
      t.entitlementKey,
      p.entitlementKey,
      t.entitlementKey.id,
      (orm, where) =>
        orm.select().from(t.entitlementKey).where(where).orderBy(asc(t.entitlementKey.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.entitlementKey).values(rows),
    ),
    table(
      "activation_end",
      t.activationEnd,
      p.activationEnd,
      t.activationEnd.id,
      (orm, where) =>
        orm.select().from(t.activationEnd).where(where).orderBy(asc(t.activationEnd.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.activationEnd).values(rows),
    ),
    table(
      "reading_progress",
      t.readingProgress,
      p.readingProgress,
      t.readingProgress.id,
      (orm, where) =>
        orm.select().from(t.readingProgress).where(where).orderBy(asc(t.readingProgress.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.readingProgress).values(rows),
    ),
    table(
      "admin_grant",
      t.adminGrant,
      p.adminGrant,
      t.adminGrant.userUuid,
      (orm, where) =>
        orm.select().from(t.adminGrant).where(where).orderBy(asc(t.adminGrant.userUuid)).limit(PAGE_ROWS),
      (r) => r.userUuid,
      (tx, rows) => tx.insert(p.adminGrant).values(rows),
    ),
    table(
      "store_user_link",
      t.storeUserLink,
      p.storeUserLink,
      t.storeUserLink.uuid,
      (orm, where) =>
        orm.select().from(t.storeUserLink).where(where).orderBy(asc(t.storeUserLink.uuid)).limit(PAGE_ROWS),
      (r) => r.uuid,
      (tx, rows) => tx.insert(p.storeUserLink).values(rows),
    ),
    table(
      "store_user",
      t.storeUser,
      p.storeUser,
      t.storeUser.id,
      (orm, where) =>
        orm.select().from(t.storeUser).where(where).orderBy(asc(t.storeUser.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.storeUser).values(rows),
    ),
    table(
      "store_usermeta",
      t.storeUsermeta,
      p.storeUsermeta,
      t.storeUsermeta.umetaId,
      (orm, where) =>
        orm
          .select()
          .from(t.storeUsermeta)
          .where(where)
          .orderBy(asc(t.storeUsermeta.umetaId))
          .limit(PAGE_ROWS),
      (r) => r.umetaId,
      (tx, rows) => tx.insert(p.storeUsermeta).values(rows),
    ),
    table(
      "rate_limit",
      t.rateLimit,
      p.rateLimit,
      t.rateLimit.key,
      (orm, where) =>
        orm.select().from(t.rateLimit).where(where).orderBy(asc(t.rateLimit.key)).limit(PAGE_ROWS),
      (r) => r.key,
      (tx, rows) => tx.insert(p.rateLimit).values(rows),
    ),
    table(
      "shop_product",
      t.shopProduct,
      p.shopProduct,
      t.shopProduct.id,
      (orm, where) =>
        orm.select().from(t.shopProduct).where(where).orderBy(asc(t.shopProduct.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.shopProduct).values(rows),
    ),
    table(
      "shop_order",
      t.shopOrder,
      p.shopOrder,
      t.shopOrder.orderId,
      (orm, where) =>
        orm.select().from(t.shopOrder).where(where).orderBy(asc(t.shopOrder.orderId)).limit(PAGE_ROWS),
      (r) => r.orderId,
      (tx, rows) => tx.insert(p.shopOrder).values(rows),
    ),
    table(
      "shop_order_grant",
      t.shopOrderGrant,
      p.shopOrderGrant,
      t.shopOrderGrant.id,
      (orm, where) =>
        orm.select().from(t.shopOrderGrant).where(where).orderBy(asc(t.shopOrderGrant.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.shopOrderGrant).values(rows),
    ),
    table(
      "shop_sync_state",
      t.shopSyncState,
      p.shopSyncState,
      t.shopSyncState.id,
      (orm, where) =>
        orm.select().from(t.shopSyncState).where(where).orderBy(asc(t.shopSyncState.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.shopSyncState).values(rows),
    ),
    table(
      "audit_event",
      t.auditEvent,
      p.auditEvent,
      t.auditEvent.id,
      (orm, where) =>
        orm.select().from(t.auditEvent).where(where).orderBy(asc(t.auditEvent.id)).limit(PAGE_ROWS),
      (r) => r.id,
      (tx, rows) => tx.insert(p.auditEvent).values(rows),
    ),
    // Last: the triggers of every table above have had their say (see the top of this file).
    asTheSourceHoldsIt(
      table(
        "reader_activity",
        t.readerActivity,
        p.readerActivity,
        t.readerActivity.userUuid,
        (orm, where) =>
          orm
            .select()
            .from(t.readerActivity)
            .where(where)
            .orderBy(asc(t.readerActivity.userUuid))
            .limit(PAGE_ROWS),
        (r) => r.userUuid,
        (tx, rows) => tx.insert(p.readerActivity).values(rows),
      ),
    ),
    asTheSourceHoldsIt(dailyCountCopy()),
  ];
}

export interface CopyOptions {
  /** The SQLite file (config.ts: DATA_DIR's bookdist.sqlite unless DATABASE_URL names another). */
  sqlitePath: string;
  /** A postgres:// URL naming an empty database (it is migrated first). */
  targetUrl: string;
  /** One line per table and every few pages: the progress (the CLI writes it to stderr). */
  progress(line: string): void;
}

/**
 * Copies the SQLite database at `sqlitePath` into the Postgres database at `targetUrl` and
 * verifies the copy; throws CopyError (a one-line message) when it cannot, leaving the target as
 * it found it (after the migrations).
 */
export async function copyToPostgres(options: CopyOptions): Promise<CopyReport> {
  if (!existsSync(options.sqlitePath)) throw new CopyError(`no SQLite database at ${options.sqlitePath}`);
  const connection = new SqliteConnection(options.sqlitePath, { readonly: true, strict: true });
  try {
    checkSourceMigrations(connection);
    // One read transaction: every table is read from the same snapshot.
    connection.exec("BEGIN");
    const source = openSourceOrm(connection);
    await migratePostgres(options.targetUrl);
    const client = new SQL(options.targetUrl, { max: 1, connectionTimeout: 10 });
    try {
      const target = drizzleBunSql({ client, schema: pg.tables });
      return await target.transaction(async (tx) => {
        await refuseNonEmpty(tx);
        const report: CopyReport = { copied: [], counters: [] };
        const copies = tableCopies();
        for (const copy of copies) {
          const [totalRow] = await source.select({ n: count() }).from(copy.source);
          const total = totalRow?.n ?? 0;
          let lastLine = 0;
          const rows = await copy.copy(source, tx, (copied) => {
            if (copied < total && Date.now() - lastLine < 2000) return;
            lastLine = Date.now();
            options.progress(`${copy.name}: ${copied}/${total} rows`);
          });
          if (total === 0) options.progress(`${copy.name}: 0/0 rows`);
          report.copied.push({ table: copy.name, rows });
        }
        await copyDeployment(source, tx);
        report.copied.push({ table: "deployment", rows: 1 });
        await advanceSequences(tx);
        report.counters = await verify(source, tx, copies);
        return report;
      });
    } finally {
      await client.close({ timeout: 5 });
    }
  } finally {
    connection.close();
  }
}

/** The source must be at the migration this version writes: the schemas are this version's. */
function checkSourceMigrations(connection: SqliteConnection): void {
  const expected = (JSON.parse(readFileSync(journalPath, "utf8")) as { entries: unknown[] }).entries.length;
  let applied: number;
  try {
    applied =
      connection.query<{ n: number }, []>("SELECT count(*) AS n FROM __drizzle_migrations").get()?.n ?? 0;
  } catch {
    throw new CopyError("the SQLite file holds no bookdist database (no migrations table)");
  }
  if (applied !== expected)
    throw new CopyError(
      `the SQLite database has ${applied} of this version's ${expected} migrations: run \`bun run db:migrate\` (or start the server once) before copying`,
    );
}

/**
 * Empty: no row in any table of ours but the deployment row the migrations made and the counters'
 * zero rows. Anything else would be mixed with the copy (and its ids would collide).
 */
async function refuseNonEmpty(tx: TargetOrm): Promise<void> {
  const held: string[] = [];
  for (const copy of tableCopies()) {
    // The migrations leave daily_count's zero rows (as row_count's), which are no data.
    const where = copy.target === pg.dailyCount ? sql`${pg.dailyCount.n} <> 0` : undefined;
    const [row] = await tx.select({ n: count() }).from(copy.target).where(where);
    if ((row?.n ?? 0) > 0) held.push(copy.name);
  }
  const [counted] = await tx.select({ n: count() }).from(pg.rowCount).where(sql`${pg.rowCount.n} <> 0`);
  if ((counted?.n ?? 0) > 0) held.push("row_count");
  const [deployments] = await tx.select({ n: count() }).from(pg.deployment);
  if ((deployments?.n ?? 0) > 1) held.push("deployment");
  if (held.length > 0)
    throw new CopyError(
      `the target database is not empty (rows in ${held.join(", ")}): copy only into a new, empty database`,
    );
}

/**
 * The deployment row: the source's id (its blobs' owner markers carry it), the target's home (the
 * cluster and database the migration recorded), so that the server takes it for its own and does
 * not renew it (repositories/deployment.ts).
 */
async function copyDeployment(source: SourceOrm, tx: TargetOrm): Promise<void> {
  const rows = await source.select().from(lite.deployment);
  const [row] = rows;
  if (rows.length !== 1 || row === undefined)
    throw new CopyError(`the SQLite database holds ${rows.length} deployment rows, not one`);
  const [made] = await tx.select({ home: pg.deployment.home }).from(pg.deployment);
  await tx.delete(pg.deployment);
  await tx.insert(pg.deployment).values({ ...row, home: made?.home ?? null });
}

/** Every identity (or serial) column's sequence continues after the largest id copied. */
async function advanceSequences(tx: TargetOrm): Promise<void> {
  const columns = await tx.execute<{ table_name: string; column_name: string }>(sql`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND (is_identity = 'YES' OR column_default LIKE 'nextval(%')`);
  for (const { table_name: tableName, column_name: columnName } of columns) {
    const table = sql.identifier(tableName);
    const column = sql.identifier(columnName);
    await tx.execute(sql`
      SELECT setval(pg_get_serial_sequence(${`"${tableName}"`}, ${columnName}),
        COALESCE((SELECT max(${column}) FROM ${table}), 1),
        (SELECT max(${column}) FROM ${table}) IS NOT NULL)`);
  }
}

/**
 * Each table holds as many rows as its source, and the counters equal the real counts: per
 * counted table (row_count, all slots), per book (book_qr_code_count) and per print run
 * (qr_code_batch_count). Throws otherwise, so
 * the transaction rolls back.
 */
async function verify(
  source: SourceOrm,
  tx: TargetOrm,
  copies: TableCopy[],
): Promise<CopyReport["counters"]> {
  const differ: string[] = [];
  for (const copy of copies) {
    const [from] = await source.select({ n: count() }).from(copy.source);
    const [to] = await tx.select({ n: count() }).from(copy.target);
    if ((from?.n ?? 0) !== (to?.n ?? 0)) differ.push(`${copy.name} ${from?.n ?? 0} → ${to?.n ?? 0}`);
  }
  const counters: CopyReport["counters"] = [];
  const counts = await tx.execute<{ table_name: string; n: string; real: string }>(sql`
    SELECT c.table_name, c.n::text AS n, r.real::text AS real
    FROM (SELECT table_name, sum(n) AS n FROM row_count GROUP BY table_name) c
    CROSS JOIN LATERAL (SELECT CASE c.table_name
      WHEN 'book' THEN (SELECT count(*) FROM book)
      WHEN 'book_version' THEN (SELECT count(*) FROM book_version)
      WHEN 'activation' THEN (SELECT count(*) FROM activation)
      WHEN 'activation_qr_code' THEN (SELECT count(*) FROM activation_qr_code)
      WHEN 'apk' THEN (SELECT count(*) FROM apk)
      WHEN 'shop_product' THEN (SELECT count(*) FROM shop_product)
      WHEN 'audit_event' THEN (SELECT count(*) FROM audit_event)
    END AS real) r`);
  for (const { table_name: table, n, real } of counts) {
    if (n !== real) differ.push(`row_count of ${table} ${n}, real ${real}`);
    counters.push({ table, n: Number(n) });
  }
  const [books] = await tx.execute<{ wrong: string }>(sql`
    SELECT count(*)::text AS wrong FROM book_qr_code_count c
    FULL JOIN (SELECT book_id, count(*) AS n FROM activation_qr_code GROUP BY book_id) r ON r.book_id = c.book_id
    WHERE c.n IS DISTINCT FROM r.n`);
  if (books?.wrong !== "0") differ.push(`book_qr_code_count wrong for ${books?.wrong} books`);
  const [batches] = await tx.execute<{ wrong: string }>(sql`
    SELECT count(*)::text AS wrong FROM
      (SELECT batch_id, sum(codes) AS codes, sum(redeemed) AS redeemed, sum(disabled) AS disabled
       FROM qr_code_batch_count GROUP BY batch_id HAVING sum(codes) <> 0) c
    FULL JOIN (SELECT batch_id, count(*) AS codes, count(*) FILTER (WHERE activation_count > 0) AS redeemed,
                      count(*) FILTER (WHERE NOT enabled) AS disabled
               FROM activation_qr_code WHERE batch_id IS NOT NULL GROUP BY batch_id) r ON r.batch_id = c.batch_id
    WHERE (c.codes, c.redeemed, c.disabled) IS DISTINCT FROM (r.codes, r.redeemed, r.disabled)`);
  if (batches?.wrong !== "0") differ.push(`qr_code_batch_count wrong for ${batches?.wrong} batches`);
  if (differ.length > 0) throw new CopyError(`the copy does not match its source: ${differ.join("; ")}`);
  return counters;
}
