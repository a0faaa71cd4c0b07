// The OPDS catalog's reads (README, Reading apps): a page of the caller's books with files, and
// the files its signed links open. A page reads the reader's own activations by index, never
// the catalogue (repositories/activations.ts readCatalogPage).
import type { Database } from "#db";
import * as activations from "../repositories/activations";
import * as versions from "../repositories/book-versions";
import * as books from "../repositories/books";

/** Entries per page of every feed. */
export const CATALOG_PAGE_SIZE = 50;

/** "Recently updated": held books whose newest version changed within this many days. */
export const RECENTLY_UPDATED_DAYS = 90;

/** The longest search a feed takes, in characters: a title or author is matched by substring. */
export const MAX_SEARCH_LENGTH = 200;

export type CatalogQuery =
  | { kind: "shelf" }
  | { kind: "recent"; now: Date }
  | { kind: "search"; terms: string };

export type CatalogPage = activations.CatalogRows;

function filterOf(query: CatalogQuery): activations.CatalogFilter {
  switch (query.kind) {
    case "shelf":
      return {};
    case "recent":
      return { changedSince: new Date(query.now.getTime() - RECENTLY_UPDATED_DAYS * 24 * 60 * 60 * 1000) };
    case "search":
      return { search: query.terms };
  }
}

/** Page `page` (from 0) of a feed, with the feed's total (repositories/activations.ts readCatalogPage). */
export function catalogPage(
  db: Database,
  userUuid: string,
  query: CatalogQuery,
  page: number,
): Promise<CatalogPage> {
  return activations.readCatalogPage(db, userUuid, filterOf(query), {
    limit: CATALOG_PAGE_SIZE,
    offset: page * CATALOG_PAGE_SIZE,
  });
}

/**
 * The version a signed download link names with its book, if the user still holds that book:
 * entitlement is asked again at every download, since the link outlives an activation.
 */
export async function heldVersion(
  db: Database,
  userUuid: string,
  versionId: number,
): Promise<{ version: versions.BookVersionRow; book: books.BookRow } | undefined> {
  const version = await versions.findBookVersion(db, versionId);
  if (!version || !(await activations.hasActivation(db, userUuid, version.bookId))) return undefined;
  const book = await books.findBook(db, version.bookId);
  return book ? { version, book } : undefined;
}

/** The book a signed cover link names, if the user holds it. */
export async function heldBook(
  db: Database,
  userUuid: string,
  bookId: number,
): Promise<books.BookRow | undefined> {
  if (!(await activations.hasActivation(db, userUuid, bookId))) return undefined;
  return books.findBook(db, bookId);
}
