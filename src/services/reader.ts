// The reader's views: each is one query however many books there are (the joins are in
// repositories/activations.ts), plus a count only when a page was asked for.
import type { Database } from "#db";
import type { ListRead, ListWindow } from "../lib/list-window";
import * as activations from "../repositories/activations";
import { type BookSortField, countBooks } from "../repositories/books";
import { found } from "./guards";
import { pageOf } from "./page";

/** The books `userUuid` holds, with their newest versions. */
export function listMyBooks(
  db: Database,
  userUuid: string,
  window: ListWindow<activations.MyBookSortField>,
): Promise<ListRead<activations.HeldBookRow>> {
  return pageOf(
    db,
    window,
    (on, chunk, after) => activations.listHeldBooks(on, userUuid, chunk, after),
    (on) => activations.countActivations(on, { userUuid }),
  );
}

/** Every book with its newest version and `userUuid`'s activation of it (or null). */
export function listBooksWithVersionAndActivation(
  db: Database,
  userUuid: string,
  window: ListWindow<BookSortField>,
): Promise<ListRead<activations.BookWithActivationRow>> {
  return pageOf(
    db,
    window,
    (on, chunk, after) => activations.listBooksWithActivation(on, userUuid, chunk, after),
    countBooks,
  );
}

export async function getBookWithVersionAndActivation(
  db: Database,
  userUuid: string,
  bookId: number,
): Promise<activations.BookWithActivationRow> {
  return found(await activations.findBookWithActivation(db, userUuid, bookId), `Book ${bookId}`);
}
