import { countText } from "../../lib/count-response";
import { respondResource } from "../../lib/hal";
import { notFound } from "../../lib/problems";
import { limitOffset, orderByOf, pagingOf, respondList } from "../../lib/sort-and-page";
import type { AppRouteHandler } from "../../lib/types";
import * as repo from "../../repositories/books";
import * as service from "../../services/books";
import { attachCover, receiveFile, sendBlob } from "../../services/files";
import type * as routes from "./books.routes";
import { bookLinks, toBook } from "./books.schemas";

export const listBooks: AppRouteHandler<typeof routes.listBooks> = async (c) => {
  const { db } = c.get("deps");
  const query = c.req.valid("query");
  const { book } = db.tables;
  const paging = pagingOf(query);
  const orderBy = orderByOf(
    query.sort,
    {
      id: book.id,
      title: book.title,
      author: book.author,
      createdAt: book.createdAt,
      updatedAt: book.updatedAt,
    },
    book.id,
  );
  const [rows, total] = await Promise.all([
    repo.listBooks(db, { orderBy, ...limitOffset(paging) }),
    repo.countBooks(db),
  ]);
  return respondList(c, { rel: "books", items: rows.map(toBook), total, paging, links: bookLinks }) as never;
};

export const countBooks: AppRouteHandler<typeof routes.countBooks> = async (c) => {
  return countText(c, await repo.countBooks(c.get("deps").db)) as never;
};

export const getBook: AppRouteHandler<typeof routes.getBook> = async (c) => {
  const { id } = c.req.valid("param");
  const book = await service.getBook(c.get("deps").db, id);
  return respondResource(c, toBook(book), (base) => bookLinks(book, base)) as never;
};

export const createBook: AppRouteHandler<typeof routes.createBook> = async (c) => {
  const { db, clock } = c.get("deps");
  const book = await repo.insertBook(db, c.req.valid("json"), clock.now());
  c.header("Location", `/book/${book.id}`);
  return respondResource(c, toBook(book), (base) => bookLinks(book, base), 201) as never;
};

export const updateBook: AppRouteHandler<typeof routes.updateBook> = async (c) => {
  const { db, clock } = c.get("deps");
  const { id } = c.req.valid("param");
  const book = await service.replaceBook(db, id, c.req.valid("json"), clock.now());
  return respondResource(c, toBook(book), (base) => bookLinks(book, base)) as never;
};

export const deleteBook: AppRouteHandler<typeof routes.deleteBook> = async (c) => {
  const { id } = c.req.valid("param");
  const book = await service.removeBook(c.get("deps").db, id);
  return respondResource(c, toBook(book), (base) => bookLinks(book, base)) as never;
};

export const getCover: AppRouteHandler<typeof routes.getCover> = async (c) => {
  const book = await service.getBook(c.get("deps").db, c.req.valid("param").id);
  if (!book.coverSha256 || !book.coverUpdatedAt) throw notFound(`The cover of book ${book.id}`);
  return sendBlob(c.get("deps"), c.req.raw, {
    sha256: book.coverSha256,
    size: book.coverSize ?? 0,
    lastModified: book.coverUpdatedAt,
    contentType: "image/png",
    // Shown in place, saved as the book's title (made safe as archive names are, by sendBlob).
    filename: `${book.title}.png`,
    disposition: "inline",
    // Covers are public; a replaced cover changes the ETag, so a short max-age is enough.
    cacheControl: "public, max-age=300",
  }) as never;
};

export const uploadCover: AppRouteHandler<typeof routes.uploadCover> = async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  await service.getBook(deps.db, id); // 404 before the body is read
  const file = await receiveFile(deps, c.req.raw, "cover");
  const book = await attachCover(deps.db, id, file, deps.clock.now(), deps.blobs);
  return respondResource(c, toBook(book), (base) => bookLinks(book, base)) as never;
};
