import {
  and,
  asc,
  count,
  desc,
  eq,
  gt,
  gte,
  inArray,
  isNotNull,
  isNull,
  lte,
  or,
  type Placeholder,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Database } from "#db";
import { orderByTerms, paged, readAfter, type SortTerm, sortTermsOf } from "../db/order-by";
import { preparedPer, prepareRows, rowsOf } from "../db/prepared";
import { countRows, countRowsUpTo, deleteById, findById, listRows, updateById } from "../db/rows";
import { queuedWrite } from "../db/transaction";
import type { BoundedCount, ListWindow } from "../lib/list-window";
import { recordActivationEnds } from "./activation-ends";
import type { BookVersionRow } from "./book-versions";
import type { BookRow, BookSortField } from "./books";
import { activationsOfSource } from "./daily-counts";

export type ActivationRow = Database["tables"]["activation"]["$inferSelect"];
export interface ActivationFields {
  bookId: number;
  userUuid: string;
  qrCodeId?: number | null;
}

/**
 * Where an activation came from, as its row records it: `code` when a QR code was redeemed on it
 * (also on a shop order's activation, which the code then keeps past a refund), `order` when a
 * shop order alone granted it, `manual` when an admin gave it by hand (POST /activation).
 */
export const activationSources = ["code", "order", "manual"] as const;
export type ActivationSource = (typeof activationSources)[number];

/** Which activations a list or count covers; every given filter must hold. */
export interface ActivationFilter {
  userUuid?: string | undefined;
  bookId?: number | undefined;
  /** The code it was redeemed from (the console's code look-up; index activation_qr_code_idx). */
  qrCodeId?: number | undefined;
  source?: ActivationSource | undefined;
  /** createdAt at or after. */
  from?: Date | undefined;
  /** createdAt at or before. */
  to?: Date | undefined;
}

/** The source as SQL: the expression of the indexes activation_source_idx and …_created_at_idx. */
function sourceOf(db: Database): SQL {
  const { activation } = db.tables;
  return sql`(CASE WHEN ${activation.qrCodeId} IS NOT NULL THEN 'code' WHEN ${activation.shopOrderId} IS NOT NULL THEN 'order' ELSE 'manual' END)`;
}

/**
 * The source filter. Alone (or with dates) it is the indexed expression; beside a user or a book,
 * whose index finds a few rows, it is the same rule on the columns, which no index matches: the
 * planner then reads that index, not every activation of the source (the scale bench saw 290 ms).
 */
function sourceTerm(db: Database, filter: ActivationFilter): SQL {
  const { activation } = db.tables;
  if (filter.userUuid === undefined && filter.bookId === undefined)
    return sql`${sourceOf(db)} = ${filter.source}`;
  if (filter.source === "code") return isNotNull(activation.qrCodeId);
  if (filter.source === "order") return and(isNull(activation.qrCodeId), isNotNull(activation.shopOrderId))!;
  return and(isNull(activation.qrCodeId), isNull(activation.shopOrderId))!;
}

function whereOf(db: Database, filter: ActivationFilter): SQL | undefined {
  const { activation } = db.tables;
  return and(
    filter.userUuid === undefined ? undefined : eq(activation.userUuid, filter.userUuid),
    filter.bookId === undefined ? undefined : eq(activation.bookId, filter.bookId),
    filter.qrCodeId === undefined ? undefined : eq(activation.qrCodeId, filter.qrCodeId),
    filter.source === undefined ? undefined : sourceTerm(db, filter),
    filter.from === undefined ? undefined : gte(activation.createdAt, filter.from),
    filter.to === undefined ? undefined : lte(activation.createdAt, filter.to),
  );
}

export const activationSortFields = ["id", "bookId", "createdAt"] as const;
export type ActivationSortField = (typeof activationSortFields)[number];

/** The activations `filter` covers; `after`: the previous chunk's last (db/rows.ts listRows). */
export function listActivations(
  db: Database,
  window: ListWindow<ActivationSortField>,
  filter: ActivationFilter = {},
  after?: ActivationRow,
): Promise<ActivationRow[]> {
  const { activation } = db.tables;
  const { bookId, ...rest } = filter;
  // A book's activations by the (book_id, field, id) indexes, whatever the planner thinks of the book.
  const book = bookId === undefined ? undefined : { column: activation.bookId, value: bookId };
  return listRows(db, activation, window, whereOf(db, rest), after, book);
}

export function countActivations(db: Database, filter: ActivationFilter = {}): Promise<number> {
  const { source, ...rest } = filter;
  // A source alone: its running total (daily_count), not a count of its index (170 ms on the
  // event loop for 5 million on SQLite; bench/README "Scale bench").
  if (source !== undefined && Object.values(rest).every((value) => value === undefined))
    return activationsOfSource(db, source);
  return countRows(db, db.tables.activation, whereOf(db, filter));
}

/** countActivations up to `bound` (db/rows.ts countRowsUpTo): all of them from the counter. */
export function countActivationsUpTo(
  db: Database,
  filter: ActivationFilter,
  bound: number,
): Promise<BoundedCount> {
  return countRowsUpTo(db, db.tables.activation, whereOf(db, filter), bound);
}

export function findActivation(db: Database, id: number): Promise<ActivationRow | undefined> {
  return findById(db, db.tables.activation, id);
}

/** Whether the user holds the book: the `entitled` level's question (services/entitlement.ts). */
export async function hasActivation(db: Database, userUuid: string, bookId: number): Promise<boolean> {
  const { activation } = db.tables;
  const [row] = await db.orm
    .select({ id: activation.id })
    .from(activation)
    // (user, book) is unique: no `.limit(1)`, whose bound LIMIT costs SQLite a re-prepare.
    .where(and(eq(activation.userUuid, userUuid), eq(activation.bookId, bookId)));
  return row !== undefined;
}

const activationOfUserStatement = preparedPer((db) => {
  const { activation } = db.tables;
  const query = db.orm
    .select()
    .from(activation)
    // (user, book) is unique: no `.limit(1)`, whose bound LIMIT costs SQLite a re-prepare.
    .where(
      and(
        eq(activation.userUuid, sql.placeholder("userUuid")),
        eq(activation.bookId, sql.placeholder("bookId")),
      ),
    );
  return prepareRows(query, "activation_of_user", activation);
});

export async function findActivationOfUser(
  db: Database,
  userUuid: string,
  bookId: number,
): Promise<ActivationRow | undefined> {
  const [row] = await rowsOf(db, activationOfUserStatement(db), { userUuid, bookId });
  return row;
}

const insertActivationStatement = preparedPer((db) => {
  const { activation } = db.tables;
  // A Param around the placeholder lets the column encode the Date it is given (ms on SQLite).
  const now = sql`${sql.param(sql.placeholder("now"), activation.createdAt)}`;
  const query = db.orm
    .insert(activation)
    .values({
      bookId: sql.placeholder("bookId"),
      userUuid: sql.placeholder("userUuid"),
      qrCodeId: sql.placeholder("qrCodeId"),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return prepareRows(query, "insert_activation", activation);
});

export async function insertActivation(
  db: Database,
  fields: ActivationFields,
  now: Date,
): Promise<ActivationRow> {
  const [row] = await queuedWrite(db, async (tx) =>
    rowsOf(tx, insertActivationStatement(tx), { ...fields, qrCodeId: fields.qrCodeId ?? null, now }),
  );
  return row!;
}

/**
 * Records a redeemed code on an activation that stands only on a shop order (no code yet), so the
 * order's refund leaves it (redeemActivationQrCode). Undefined when the activation is gone or
 * carries a code by now: a concurrent redemption or revocation won.
 */
export async function recordCodeOnShopActivation(
  tx: Database,
  id: number,
  qrCodeId: number,
  now: Date,
): Promise<ActivationRow | undefined> {
  const { activation } = tx.tables;
  const [row] = await tx.orm
    .update(activation)
    .set({ qrCodeId, updatedAt: now })
    .where(and(eq(activation.id, id), isNull(activation.qrCodeId), isNotNull(activation.shopOrderId)))
    .returning();
  return row;
}

/**
 * A shop order's activation of the book, or null when the user holds it already (the unique
 * (user, book) index decides, also against a QR redemption racing on Postgres).
 */
export async function insertShopActivation(
  tx: Database,
  fields: { bookId: number; userUuid: string; shopOrderId: number },
  now: Date,
): Promise<ActivationRow | null> {
  const { activation } = tx.tables;
  const [row] = await tx.orm
    .insert(activation)
    .values({ ...fields, qrCodeId: null, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

/**
 * Takes back the activation this order made: deleted if it still stands on this order alone (an
 * admin may have replaced it); "detached" (kept, no longer the order's) when a code was redeemed
 * on it since, since the printed code paid for the book too (redeemActivationQrCode); "gone" else.
 */
export async function deleteShopActivation(
  tx: Database,
  activationId: number,
  shopOrderId: number,
  now: Date,
): Promise<"deleted" | "detached" | "gone"> {
  const { activation } = tx.tables;
  const ours = and(eq(activation.id, activationId), eq(activation.shopOrderId, shopOrderId));
  const deleted = await tx.orm
    .delete(activation)
    .where(and(ours, isNull(activation.qrCodeId)))
    .returning({ id: activation.id, userUuid: activation.userUuid, bookId: activation.bookId });
  if (deleted.length === 1) {
    // The revocations feed of offline entitlements (README "Offline entitlements").
    await recordActivationEnds(tx, deleted, now);
    return "deleted";
  }
  const detached = await tx.orm
    .update(activation)
    .set({ shopOrderId: null, updatedAt: now })
    .where(ours)
    .returning({ id: activation.id });
  return detached.length === 1 ? "detached" : "gone";
}

/**
 * What a shop order's reconciliation may meet (services/shop-plan.ts): the activations with these
 * ids, and every activation of these users of these books.
 */
export async function activationsOfShopOrder(
  tx: Database,
  ids: number[],
  userUuids: string[],
  bookIds: number[],
): Promise<ActivationRow[]> {
  const { activation } = tx.tables;
  const held =
    userUuids.length > 0 && bookIds.length > 0
      ? and(inArray(activation.userUuid, userUuids), inArray(activation.bookId, bookIds))
      : undefined;
  const named = ids.length > 0 ? inArray(activation.id, ids) : undefined;
  if (!held && !named) return [];
  return tx.orm.select().from(activation).where(or(held, named)).orderBy(asc(activation.id));
}

export function updateActivation(
  db: Database,
  id: number,
  fields: Pick<ActivationFields, "bookId" | "userUuid">,
  now: Date,
): Promise<ActivationRow | undefined> {
  return updateById(db, db.tables.activation, id, { ...fields, updatedAt: now });
}

export function deleteActivation(db: Database, id: number): Promise<ActivationRow | undefined> {
  return deleteById(db, db.tables.activation, id);
}

/**
 * Joins a book's newest version (the highest versionCode among the versions with an
 * archive — the rule of findNewestVersion), so a list of books needs no query per book.
 */
function isNewestVersion(db: Database): SQL {
  const { book, bookVersion } = db.tables;
  return sql`${bookVersion.id} = (SELECT newer.id FROM book_version newer WHERE newer.book_id = ${book.id} AND newer.archive_sha256 IS NOT NULL ORDER BY newer.version_code DESC LIMIT 1)`;
}

/** A book, the user's activation of it (or null) and its newest version (or null). */
export interface BookWithActivationRow {
  book: BookRow;
  activation: ActivationRow | null;
  newestVersion: BookVersionRow | null;
}

/** A book the user holds: its activation is there. */
export interface HeldBookRow extends BookWithActivationRow {
  activation: ActivationRow;
}

/** A shelf entry's tables, in the order the row's values come (row-mapper.ts). */
function heldBookSelection({ tables: { activation, book, bookVersion } }: Database) {
  return { activation, book, newestVersion: bookVersion };
}

function heldBooksQuery(db: Database, userUuid: string | Placeholder, keyset?: SQL) {
  const { activation, book, bookVersion } = db.tables;
  return db.orm
    .select(heldBookSelection(db))
    .from(activation)
    .innerJoin(book, eq(book.id, activation.bookId))
    .leftJoin(bookVersion, isNewestVersion(db))
    .where(and(eq(activation.userUuid, userUuid), keyset))
    .$dynamic();
}

/** Unsorted, the shelf is newest activation first; of two in one millisecond, the later one. */
function newestActivationFirst({ tables: { activation } }: Database): SortTerm<HeldBookRow>[] {
  return [
    { column: activation.createdAt, direction: "desc", valueIn: (row) => row.activation.createdAt },
    { column: activation.id, direction: "desc", valueIn: (row) => row.activation.id },
  ];
}

/**
 * A reader's shelf, newest activation first: what the app asks for on every start. Its LIMIT is
 * bound: a shelf longer than a chunk is streamed (services/page.ts) and read on by keyset.
 */
const heldBooksStatement = preparedPer((db) => {
  const query = heldBooksQuery(db, sql.placeholder("userUuid"))
    .orderBy(...orderByTerms(newestActivationFirst(db)))
    .limit(sql.placeholder("limit"));
  return prepareRows(query, "held_books", heldBookSelection(db));
});

/** The shelf's sortable fields: the activation's time and the book's title. */
export const myBookSortFields = ["activatedAt", "title"] as const;
export type MyBookSortField = (typeof myBookSortFields)[number];

function myBookSortColumns({ activation, book }: Database["tables"]) {
  return {
    activatedAt: activation.createdAt,
    title: book.title,
  } satisfies Record<MyBookSortField, unknown>;
}

/**
 * The books a user holds with their activations and newest versions, in one query. Unsorted:
 * newest activation first. `after`: the previous chunk's last row (db/order-by.ts readAfter).
 */
export async function listHeldBooks(
  db: Database,
  userUuid: string,
  window: ListWindow<MyBookSortField>,
  after?: HeldBookRow,
): Promise<HeldBookRow[]> {
  const unsorted = window.sort.length === 0;
  // The app's start: the first rows of the unsorted shelf, prepared.
  if (unsorted && window.limit !== undefined && window.offset === undefined && after === undefined) {
    return rowsOf(db, heldBooksStatement(db), { userUuid, limit: window.limit });
  }
  const { activation } = db.tables;
  const terms = unsorted
    ? newestActivationFirst(db)
    : sortTermsOf<MyBookSortField, HeldBookRow>(
        window,
        myBookSortColumns(db.tables),
        { column: activation.id, direction: "asc", valueIn: (row) => row.activation.id },
        (row, field) => (field === "activatedAt" ? row.activation.createdAt : row.book.title),
      );
  const orderBy = orderByTerms(terms);
  const read = (keyset: SQL | undefined, slice: Pick<ListWindow, "limit" | "offset">) =>
    paged(heldBooksQuery(db, userUuid, keyset).orderBy(...orderBy), slice);
  if (after === undefined) return read(undefined, window);
  return readAfter(terms, after, db.dialect, window.limit, (keyset, limit) => read(keyset, { limit }));
}

/** A book-with-activation row's tables, in the order the row's values come (row-mapper.ts). */
function bookWithActivationSelection({ tables: { activation, book, bookVersion } }: Database) {
  return { book, activation, newestVersion: bookVersion };
}

/**
 * Books with the given user's activation of each (or null) and their newest versions, in one
 * query: the activation is joined on (book, user), which the unique index makes at most one row.
 */
function booksWithActivationQuery(db: Database, userUuid: string | Placeholder) {
  const { activation, book, bookVersion } = db.tables;
  return db.orm
    .select(bookWithActivationSelection(db))
    .from(book)
    .leftJoin(activation, and(eq(activation.bookId, book.id), eq(activation.userUuid, userUuid)))
    .leftJoin(bookVersion, isNewestVersion(db))
    .$dynamic();
}

/**
 * Every book by id, a chunk at a time from `afterId` (0 for the first): the app's unsorted
 * catalogue, prepared. Each chunk walks the book's primary key and joins by index, so a chunk
 * costs the same at any size.
 */
const allBooksWithActivationStatement = preparedPer((db) => {
  const { book } = db.tables;
  const query = booksWithActivationQuery(db, sql.placeholder("userUuid"))
    .where(gt(book.id, sql.placeholder("afterId")))
    .orderBy(asc(book.id))
    .limit(sql.placeholder("limit"));
  return prepareRows(query, "all_books_with_activation", bookWithActivationSelection(db));
});

const bookWithActivationStatement = preparedPer((db) => {
  const query = booksWithActivationQuery(db, sql.placeholder("userUuid")).where(
    eq(db.tables.book.id, sql.placeholder("bookId")),
  );
  return prepareRows(query, "book_with_activation", bookWithActivationSelection(db));
});

/**
 * Every book (or a page of them), with the user's activation and the newest version; sortable
 * as the books list is. Unsorted: by id. `after`: the previous chunk's last row.
 */
export async function listBooksWithActivation(
  db: Database,
  userUuid: string,
  window: ListWindow<BookSortField>,
  after?: BookWithActivationRow,
): Promise<BookWithActivationRow[]> {
  const { book } = db.tables;
  if (window.sort.length === 0 && window.limit !== undefined && window.offset === undefined) {
    const afterId = after?.book.id ?? 0;
    return rowsOf(db, allBooksWithActivationStatement(db), { userUuid, afterId, limit: window.limit });
  }
  const terms = sortTermsOf<BookSortField, BookWithActivationRow>(
    window,
    book,
    { column: book.id, direction: "asc", valueIn: (row) => row.book.id },
    (row, field) => row.book[field],
  );
  const orderBy = orderByTerms(terms);
  const read = (keyset: SQL | undefined, slice: Pick<ListWindow, "limit" | "offset">) => {
    const query = booksWithActivationQuery(db, userUuid);
    if (keyset) query.where(keyset);
    return paged(query.orderBy(...orderBy), slice);
  };
  if (after === undefined) return read(undefined, window);
  return readAfter(terms, after, db.dialect, window.limit, (keyset, limit) => read(keyset, { limit }));
}

/** One book with the user's activation and its newest version; undefined if there is no such book. */
export async function findBookWithActivation(
  db: Database,
  userUuid: string,
  bookId: number,
): Promise<BookWithActivationRow | undefined> {
  const [row] = await rowsOf(db, bookWithActivationStatement(db), { userUuid, bookId });
  return row;
}

/** What an offline-entitlements token says of one held book (README "Offline entitlements"). */
export interface EntitledBookRow {
  activationId: number;
  bookId: number;
  since: Date;
  versionId: number | null;
  versionCode: number | null;
  sha256: string | null;
}

function entitledBookSelection({ tables: { activation, bookVersion } }: Database) {
  return {
    activationId: activation.id,
    bookId: activation.bookId,
    since: activation.createdAt,
    versionId: bookVersion.id,
    versionCode: bookVersion.versionCode,
    sha256: bookVersion.archiveSha256,
  };
}

/**
 * Every book a user holds with its newest version's id, code and digest, by activation id (SQLite;
 * Postgres: entitledBooksOnPostgres): one prepared query over activation_user_book_uq, the newest version found by book_version's
 * (book_id, version_code) index as the shelf finds it — only the columns a token carries.
 */
const entitledBooksStatement = preparedPer((db) => {
  const { activation, bookVersion } = db.tables;
  // isNewestVersion's rule, keyed by the activation's book: no join of book (the foreign key
  // keeps it there), one index probe per held book.
  const newest = sql`${bookVersion.id} = (SELECT newer.id FROM book_version newer WHERE newer.book_id = ${activation.bookId} AND newer.archive_sha256 IS NOT NULL ORDER BY newer.version_code DESC LIMIT 1)`;
  const query = db.orm
    .select(entitledBookSelection(db))
    .from(activation)
    .leftJoin(bookVersion, newest)
    .where(eq(activation.userUuid, sql.placeholder("userUuid")))
    .orderBy(asc(activation.id))
    .limit(sql.placeholder("limit"));
  return prepareRows(query, "entitled_books", entitledBookSelection(db));
});

/** What Postgres answers for entitledBooksOnPostgres: bigint columns may come as strings. */
interface EntitledBookValues {
  activationId: number | string;
  bookId: number | string;
  since: Date | string;
  versionId: number | string | null;
  versionCode: number | null;
  sha256: string | null;
}

/**
 * The same read on Postgres as a LATERAL join: one probe of (book_id, version_code) per held book
 * instead of the subquery and a probe of the version's key, half the time for 5,000 books
 * (bench/README.md, Offline entitlements). SQLite has no LATERAL and is fast with the subquery.
 */
async function entitledBooksOnPostgres(db: Database, userUuid: string, limit: number) {
  // Only the Postgres builder runs plain SQL this way; the guard says this is it.
  const orm: unknown = db.orm;
  if (!canExecute(orm)) throw new Error("a Postgres handle without execute()");
  const rows = await orm.execute(sql`
    SELECT a.id AS "activationId", a.book_id AS "bookId", a.created_at AS "since",
      v.id AS "versionId", v.version_code AS "versionCode", v.archive_sha256 AS "sha256"
    FROM activation a
    LEFT JOIN LATERAL (
      SELECT newer.id, newer.version_code, newer.archive_sha256 FROM book_version newer
      WHERE newer.book_id = a.book_id AND newer.archive_sha256 IS NOT NULL
      ORDER BY newer.version_code DESC LIMIT 1
    ) v ON true
    WHERE a.user_uuid = ${userUuid}
    ORDER BY a.id
    LIMIT ${limit}`);
  return rows.map(
    (row): EntitledBookRow => ({
      activationId: Number(row.activationId),
      bookId: Number(row.bookId),
      since: new Date(row.since),
      versionId: row.versionId === null ? null : Number(row.versionId),
      versionCode: row.versionCode,
      sha256: row.sha256,
    }),
  );
}

function canExecute(orm: unknown): orm is { execute(query: SQL): Promise<EntitledBookValues[]> } {
  return (
    typeof orm === "object" && orm !== null && typeof (orm as { execute?: unknown }).execute === "function"
  );
}

/** The user's held books for an entitlements token, at most `limit` (a bound the caller sets). */
export async function listEntitledBooks(
  db: Database,
  userUuid: string,
  limit: number,
): Promise<EntitledBookRow[]> {
  if (db.dialect === "postgres") return entitledBooksOnPostgres(db, userUuid, limit);
  return rowsOf(db, entitledBooksStatement(db), { userUuid, limit });
}

/**
 * Which of a user's held books a catalog page shows (README, Reading apps): only those with a
 * downloadable newest version (an OPDS entry must offer an acquisition), optionally those whose
 * newest version changed at or after `changedSince`, or whose title or author contains `search`.
 */
export interface CatalogFilter {
  changedSince?: Date;
  search?: string;
}

/**
 * `%text%` for LIKE, with LIKE's own characters (and the escape) taken literally. Lower-cased by
 * the database, as the columns are: Postgres folds every letter, SQLite ASCII letters only, and
 * either way the pattern is folded as the text it is matched against.
 */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/** A search's condition on the book: its title or author contains the terms. */
function searchWhere({ tables: { book } }: Database, filter: CatalogFilter): SQL | undefined {
  if (filter.search === undefined) return undefined;
  const pattern = containsPattern(filter.search);
  return or(
    sql`lower(${book.title}) LIKE lower(${pattern}) ESCAPE '\\'`,
    sql`lower(${book.author}) LIKE lower(${pattern}) ESCAPE '\\'`,
  );
}

function catalogWhere(db: Database, userUuid: string, filter: CatalogFilter): SQL | undefined {
  const { activation, bookVersion } = db.tables;
  return and(
    eq(activation.userUuid, userUuid),
    isNotNull(bookVersion.id),
    filter.changedSince === undefined ? undefined : gte(bookVersion.updatedAt, filter.changedSince),
    searchWhere(db, filter),
  );
}

/** A catalog page: its rows and the size of the whole feed. */
export interface CatalogRows {
  rows: HeldBookRow[];
  total: number;
}

/**
 * A page of the user's held books with files. It reads the reader's own activations (or, for
 * "changed since", the versions changed since then) by index, so it costs one reader's shelf at
 * most, never the catalogue's:
 * - the shelf (newest activation first) walks activation_user_created_at_idx in order and stops
 *   at the page, and its total is a count of the reader's activations with one index seek each;
 * - "changed since" finds its set once (recentCatalogPage), the page and its total from it;
 * - a search must look at every held book to filter, so the page and its total come from that
 *   one pass (`count(*) OVER ()`); only a page past the end asks for the total again.
 */
export async function readCatalogPage(
  db: Database,
  userUuid: string,
  filter: CatalogFilter,
  slice: { limit: number; offset: number },
): Promise<CatalogRows> {
  const { activation, book, bookVersion } = db.tables;
  const shelf = filter.changedSince === undefined && filter.search === undefined;
  // The shelf's walk in index order stops at its page only without a window over the whole feed.
  const total = shelf ? sql<number>`0` : sql<number>`count(*) OVER ()`;
  const read = () =>
    filter.changedSince !== undefined
      ? recentCatalogPage(db, userUuid, filter.changedSince, slice)
      : db.orm
          .select({ ...heldBookSelection(db), total })
          .from(activation)
          .innerJoin(book, eq(book.id, activation.bookId))
          .leftJoin(bookVersion, isNewestVersion(db))
          .where(catalogWhere(db, userUuid, filter))
          .orderBy(desc(activation.createdAt), desc(activation.id))
          .limit(slice.limit)
          .offset(slice.offset);
  const withoutTotal = (counted: Awaited<ReturnType<typeof read>>): HeldBookRow[] =>
    counted.map(({ activation: a, book: b, newestVersion }) => ({ activation: a, book: b, newestVersion }));
  if (shelf) {
    const [counted, count] = await Promise.all([read(), countCatalogBooks(db, userUuid, filter)]);
    return { rows: withoutTotal(counted), total: count };
  }
  const counted = await read();
  if (counted.length > 0) return { rows: withoutTotal(counted), total: Number(counted[0]!.total) };
  return { rows: [], total: slice.offset === 0 ? 0 : await countCatalogBooks(db, userUuid, filter) };
}

/**
 * Recently updated in one statement: the CTE `found` holds the keys of every held book whose
 * newest version changed since `since`, `page` the page's keys (most recently changed first; of
 * two changed at one instant, the higher book id), and only those rows are joined to their
 * activation, book and newest version. `found` is read twice (the page and the total), so
 * Postgres computes it once and plans it as a whole set: a `count(*) OVER ()` under the LIMIT let
 * its planner cost the join as if it stopped at the page, and pick a hash join over sequential
 * scans of book and book_version. It starts from the versions with an archive changed since then
 * (book_version_changed_idx, a range) or from the reader's activations, whichever the planner
 * finds cheaper, and keeps a version only if it is its book's newest (one seek of
 * book_version_newest_idx) and the reader holds the book (activation_user_book_uq).
 */
function recentCatalogPage(
  db: Database,
  userUuid: string,
  since: Date,
  slice: { limit: number; offset: number },
) {
  const { activation, book, bookVersion } = db.tables;
  const found = db.orm.$with("found").as(
    db.orm
      .select({
        activationId: sql<number>`${activation.id}`.as("held_activation_id"),
        bookId: sql<number>`${bookVersion.bookId}`.as("held_book_id"),
        changedAt: sql`${bookVersion.updatedAt}`.as("held_changed_at"),
      })
      .from(bookVersion)
      .innerJoin(
        activation,
        and(eq(activation.bookId, bookVersion.bookId), eq(activation.userUuid, userUuid)),
      )
      .where(
        and(
          isNotNull(bookVersion.archiveSha256),
          gte(bookVersion.updatedAt, since),
          // A scalar subquery, not NOT EXISTS: Postgres keeps it a seek per changed version
          // rather than an anti-join against every book's versions.
          sql`${bookVersion.versionCode} = (SELECT max(newer.version_code) FROM book_version newer WHERE newer.book_id = ${bookVersion.bookId} AND newer.archive_sha256 IS NOT NULL)`,
        ),
      ),
  );
  const page = db.orm
    .$with("page")
    .as(
      db.orm
        .select({ activationId: found.activationId, bookId: found.bookId, changedAt: found.changedAt })
        .from(found)
        .orderBy(desc(found.changedAt), desc(found.bookId))
        .limit(slice.limit)
        .offset(slice.offset),
    );
  return db.orm
    .with(found, page)
    .select({ ...heldBookSelection(db), total: sql<number>`(SELECT count(*) FROM ${found})` })
    .from(page)
    .innerJoin(activation, eq(activation.id, page.activationId))
    .innerJoin(book, eq(book.id, page.bookId))
    .leftJoin(bookVersion, isNewestVersion(db))
    .orderBy(desc(page.changedAt), desc(page.bookId));
}

/** The book of the activation has a version with an archive (book_version_newest_idx: one seek). */
function hasFile({ tables: { activation } }: Database): SQL {
  return sql`EXISTS (SELECT 1 FROM book_version filed WHERE filed.book_id = ${activation.bookId} AND filed.archive_sha256 IS NOT NULL)`;
}

/**
 * How many held books `listCatalogBooks` pages through for this filter: the reader's activations
 * (an index range) with one index seek each, joined to the book only for a search and to its
 * newest version only for "changed since".
 */
export async function countCatalogBooks(
  db: Database,
  userUuid: string,
  filter: CatalogFilter,
): Promise<number> {
  const { activation, book, bookVersion } = db.tables;
  const where = and(eq(activation.userUuid, userUuid), hasFile(db), searchWhere(db, filter));
  if (filter.changedSince !== undefined) {
    const [row] = await db.orm
      .select({ total: count() })
      .from(activation)
      .innerJoin(book, eq(book.id, activation.bookId))
      .innerJoin(bookVersion, isNewestVersion(db))
      .where(and(eq(activation.userUuid, userUuid), gte(bookVersion.updatedAt, filter.changedSince)));
    return Number(row?.total ?? 0);
  }
  const query = db.orm.select({ total: count() }).from(activation).$dynamic();
  if (filter.search !== undefined) query.innerJoin(book, eq(book.id, activation.bookId));
  const [row] = await query.where(where);
  return Number(row?.total ?? 0);
}
