import { and, asc, count, desc, eq, type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { preparedPer, prepareNamed, rowsOf } from "../db/prepared";
import { queuedWrite } from "../db/transaction";
import type { BookVersionRow } from "./book-versions";
import type { BookRow } from "./books";

export type ActivationRow = Database["tables"]["activation"]["$inferSelect"];
export interface ActivationFields {
  bookId: number;
  userUuid: string;
  qrCodeId?: number | null;
}

/** Which activations a list or count covers: all, one user's, or one book's. */
export interface ActivationFilter {
  userUuid?: string;
  bookId?: number;
}

function whereOf(db: Database, filter: ActivationFilter): SQL | undefined {
  const { activation } = db.tables;
  return and(
    filter.userUuid === undefined ? undefined : eq(activation.userUuid, filter.userUuid),
    filter.bookId === undefined ? undefined : eq(activation.bookId, filter.bookId),
  );
}

export async function listActivations(
  db: Database,
  options: ActivationFilter & { orderBy: SQL[]; limit?: number; offset?: number },
): Promise<ActivationRow[]> {
  const { activation } = db.tables;
  const query = db.orm
    .select()
    .from(activation)
    .where(whereOf(db, options))
    .orderBy(...options.orderBy)
    .$dynamic();
  if (options.limit !== undefined) query.limit(options.limit).offset(options.offset ?? 0);
  return query;
}

export async function countActivations(db: Database, filter: ActivationFilter = {}): Promise<number> {
  const [row] = await db.orm.select({ n: count() }).from(db.tables.activation).where(whereOf(db, filter));
  return Number(row?.n ?? 0);
}

export async function findActivation(db: Database, id: number): Promise<ActivationRow | undefined> {
  const { activation } = db.tables;
  const [row] = await db.orm.select().from(activation).where(eq(activation.id, id));
  return row;
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
  return prepareNamed(query, "activation_of_user");
});

export async function findActivationOfUser(
  db: Database,
  userUuid: string,
  bookId: number,
): Promise<ActivationRow | undefined> {
  const [row] = await rowsOf(activationOfUserStatement(db).execute({ userUuid, bookId }));
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
  return prepareNamed(query, "insert_activation");
});

export async function insertActivation(
  db: Database,
  fields: ActivationFields,
  now: Date,
): Promise<ActivationRow> {
  const [row] = await rowsOf(
    insertActivationStatement(db).execute({ ...fields, qrCodeId: fields.qrCodeId ?? null, now }),
  );
  return row!;
}

export async function updateActivation(
  db: Database,
  id: number,
  fields: Pick<ActivationFields, "bookId" | "userUuid">,
  now: Date,
): Promise<ActivationRow | undefined> {
  const { activation } = db.tables;
  const [row] = await queuedWrite(db, () =>
    db.orm
      .update(activation)
      .set({ ...fields, updatedAt: now })
      .where(eq(activation.id, id))
      .returning(),
  );
  return row;
}

export async function deleteActivation(db: Database, id: number): Promise<ActivationRow | undefined> {
  const { activation } = db.tables;
  const [row] = await queuedWrite(db, () =>
    db.orm.delete(activation).where(eq(activation.id, id)).returning(),
  );
  return row;
}

/**
 * Joins a book's newest version (API.md §4: the highest versionCode among the versions with an
 * archive — the rule of findNewestVersions), so a list of books needs no query per book.
 */
function isNewestVersion(db: Database): SQL {
  const { book, bookVersion } = db.tables;
  return sql`${bookVersion.id} = (SELECT newer.id FROM book_version newer WHERE newer.book_id = ${book.id} AND newer.archive_sha256 IS NOT NULL ORDER BY newer.version_code DESC LIMIT 1)`;
}

export interface HeldBookRow {
  activation: ActivationRow;
  book: BookRow;
  newestVersion: BookVersionRow | null;
}

function heldBooksQuery(db: Database, userUuid: string | Placeholder) {
  const { activation, book, bookVersion } = db.tables;
  return db.orm
    .select({ activation, book, newestVersion: bookVersion })
    .from(activation)
    .innerJoin(book, eq(book.id, activation.bookId))
    .leftJoin(bookVersion, isNewestVersion(db))
    .where(eq(activation.userUuid, userUuid))
    .$dynamic();
}

/** A reader's shelf, newest activation first: what the app asks for on every start. */
const heldBooksStatement = preparedPer((db) => {
  const { activation } = db.tables;
  const query = heldBooksQuery(db, sql.placeholder("userUuid")).orderBy(
    desc(activation.createdAt),
    desc(activation.id),
  );
  return prepareNamed(query, "held_books");
});

/**
 * The books a user holds with their activations and newest versions, in one query. Without
 * `orderBy`: newest activation first.
 */
export async function listHeldBooks(
  db: Database,
  options: { userUuid: string; orderBy?: SQL[]; limit?: number; offset?: number },
): Promise<HeldBookRow[]> {
  if (options.orderBy === undefined && options.limit === undefined) {
    return rowsOf(heldBooksStatement(db).execute({ userUuid: options.userUuid }));
  }
  const { activation } = db.tables;
  const query = heldBooksQuery(db, options.userUuid).orderBy(
    ...(options.orderBy ?? [desc(activation.createdAt), desc(activation.id)]),
  );
  if (options.limit !== undefined) query.limit(options.limit).offset(options.offset ?? 0);
  return query;
}

export interface BookWithActivationRow {
  book: BookRow;
  activation: ActivationRow | null;
  newestVersion: BookVersionRow | null;
}

/**
 * Books with the given user's activation of each (or null) and their newest versions, in one
 * query: the activation is joined on (book, user), which the unique index makes at most one row.
 */
function booksWithActivationQuery(db: Database, userUuid: string | Placeholder) {
  const { activation, book, bookVersion } = db.tables;
  return db.orm
    .select({ book, activation, newestVersion: bookVersion })
    .from(book)
    .leftJoin(activation, and(eq(activation.bookId, book.id), eq(activation.userUuid, userUuid)))
    .leftJoin(bookVersion, isNewestVersion(db))
    .$dynamic();
}

const allBooksWithActivationStatement = preparedPer((db) => {
  const query = booksWithActivationQuery(db, sql.placeholder("userUuid")).orderBy(asc(db.tables.book.id));
  return prepareNamed(query, "all_books_with_activation");
});

const bookWithActivationStatement = preparedPer((db) => {
  const query = booksWithActivationQuery(db, sql.placeholder("userUuid")).where(
    eq(db.tables.book.id, sql.placeholder("bookId")),
  );
  return prepareNamed(query, "book_with_activation");
});

/** Every book (or a page of them), with the user's activation and the newest version. Default order: id. */
export async function listBooksWithActivation(
  db: Database,
  options: { userUuid: string; orderBy?: SQL[]; limit?: number; offset?: number },
): Promise<BookWithActivationRow[]> {
  if (options.orderBy === undefined && options.limit === undefined) {
    return rowsOf(allBooksWithActivationStatement(db).execute({ userUuid: options.userUuid }));
  }
  const query = booksWithActivationQuery(db, options.userUuid).orderBy(
    ...(options.orderBy ?? [asc(db.tables.book.id)]),
  );
  if (options.limit !== undefined) query.limit(options.limit).offset(options.offset ?? 0);
  return query;
}

/** One book with the user's activation and its newest version; undefined if there is no such book. */
export async function findBookWithActivation(
  db: Database,
  userUuid: string,
  bookId: number,
): Promise<BookWithActivationRow | undefined> {
  const [row] = await rowsOf(bookWithActivationStatement(db).execute({ userUuid, bookId }));
  return row;
}
