// The reader's views. Each answers with a fixed number of queries however many books there are:
// one query joins book, the caller's activation and the newest version; a paged list adds one
// for its total. The unsorted, unpaged forms the app asks for all the time are prepared.
import { countText } from "../../lib/count-response";
import { respondResource } from "../../lib/hal";
import { notFound } from "../../lib/problems";
import { limitOffset, orderByOf, pagingOf, respondList } from "../../lib/sort-and-page";
import type { AppRouteHandler } from "../../lib/types";
import {
  countActivations,
  findBookWithActivation,
  listBooksWithActivation,
  listHeldBooks,
} from "../../repositories/activations";
import { countBooks } from "../../repositories/books";
import { getBook } from "../../services/books";
import { respondActivations } from "../activations/activations.handlers";
import type * as routes from "./reader.routes";
import {
  bookWithVersionAndActivationLinks,
  myBookLinks,
  toBookWithVersionAndActivation,
  toMyBook,
} from "./reader.schemas";

export const listMyBooks: AppRouteHandler<typeof routes.listMyBooks> = async (c) => {
  const { db } = c.get("deps");
  const { userUuid } = c.get("principal");
  const query = c.req.valid("query");
  const { activation: a, book: b } = db.tables;
  const paging = pagingOf(query);
  const orderBy = query.sort
    ? orderByOf(query.sort, { activatedAt: a.createdAt, title: b.title }, a.id)
    : undefined;
  const rows = await listHeldBooks(db, { userUuid, orderBy, ...limitOffset(paging) });
  // A whole list is its own total; only a page needs to count.
  const total = paging ? await countActivations(db, { userUuid }) : rows.length;
  const items = rows.map((row) => toMyBook(row.activation, row.book, row.newestVersion));
  return respondList(c, { rel: "myBooks", items, total, paging, links: myBookLinks }) as never;
};

export const listBooksWithVersionAndActivation: AppRouteHandler<
  typeof routes.listBooksWithVersionAndActivation
> = async (c) => {
  const { db } = c.get("deps");
  const { userUuid } = c.get("principal");
  const query = c.req.valid("query");
  const { book } = db.tables;
  const paging = pagingOf(query);
  const orderBy = query.sort
    ? orderByOf(
        query.sort,
        {
          id: book.id,
          title: book.title,
          author: book.author,
          createdAt: book.createdAt,
          updatedAt: book.updatedAt,
        },
        book.id,
      )
    : undefined;
  const rows = await listBooksWithActivation(db, { userUuid, orderBy, ...limitOffset(paging) });
  const total = paging ? await countBooks(db) : rows.length;
  const items = rows.map((row) =>
    toBookWithVersionAndActivation(row.book, row.newestVersion, row.activation),
  );
  return respondList(c, {
    rel: "booksWithVersionAndActivation",
    items,
    total,
    paging,
    links: bookWithVersionAndActivationLinks,
  }) as never;
};

export const getBookWithVersionAndActivation: AppRouteHandler<
  typeof routes.getBookWithVersionAndActivation
> = async (c) => {
  const { db } = c.get("deps");
  const { id } = c.req.valid("param");
  const row = await findBookWithActivation(db, c.get("principal").userUuid, id);
  if (!row) throw notFound(`Book ${id}`);
  const item = toBookWithVersionAndActivation(row.book, row.newestVersion, row.activation);
  return respondResource(c, item, (base) => bookWithVersionAndActivationLinks(item, base)) as never;
};

export const listActivationsOfBook: AppRouteHandler<typeof routes.listActivationsOfBook> = async (c) => {
  const { id: bookId } = c.req.valid("param");
  await getBook(c.get("deps").db, bookId);
  return (await respondActivations(c, c.req.valid("query"), { bookId })) as never;
};

export const countActivationsOfBook: AppRouteHandler<typeof routes.countActivationsOfBook> = async (c) => {
  const { db } = c.get("deps");
  const { id: bookId } = c.req.valid("param");
  await getBook(db, bookId);
  return countText(c, await countActivations(db, { bookId })) as never;
};
