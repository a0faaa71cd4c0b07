import { auditSourceOf } from "../../http/audit-source";
import { receiveFile } from "../../http/file-upload";
import {
  listRequestOf,
  respondCount,
  respondCreated,
  respondList,
  respondResource,
} from "../../http/respond";
import { sendStoredFile } from "../../http/stored-file";
import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/books";
import { attachCover } from "../../services/files";
import type * as routes from "./books.routes";
import { BookList, BookResource, toBook } from "./books.schemas";

export const listBooks: AppRouteHandler<typeof routes.listBooks> = async (c) => {
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listBooks(c.get("deps").db, window);
  return respondList(c, BookList, list, toBook, paging, 200);
};

export const countBooks: AppRouteHandler<typeof routes.countBooks> = async (c) => {
  const count = await service.countBooks(c.get("deps").db);
  return respondCount(c, count);
};

export const getBook: AppRouteHandler<typeof routes.getBook> = async (c) => {
  const { id } = c.req.valid("param");
  const book = await service.getBook(c.get("deps").db, id);
  return respondResource(c, BookResource, toBook(book));
};

export const createBook: AppRouteHandler<typeof routes.createBook> = async (c) => {
  const { db, clock } = c.get("deps");
  const book = await service.createBook(db, auditSourceOf(c), c.req.valid("json"), clock.now());
  return respondCreated(c, BookResource, toBook(book));
};

export const updateBook: AppRouteHandler<typeof routes.updateBook> = async (c) => {
  const { db, clock } = c.get("deps");
  const { id } = c.req.valid("param");
  const book = await service.replaceBook(db, auditSourceOf(c), id, c.req.valid("json"), clock.now());
  return respondResource(c, BookResource, toBook(book));
};

export const deleteBook: AppRouteHandler<typeof routes.deleteBook> = async (c) => {
  const { db, clock } = c.get("deps");
  const { id } = c.req.valid("param");
  const book = await service.removeBook(db, auditSourceOf(c), id, clock.now());
  return respondResource(c, BookResource, toBook(book));
};

export const getBookCover: AppRouteHandler<typeof routes.getBookCover> = async (c) => {
  const book = await service.getBook(c.get("deps").db, c.req.valid("param").id);
  const cover = { sha256: book.coverSha256, size: book.coverSize, uploadedAt: book.coverUpdatedAt };
  return sendStoredFile(c, `The cover of book ${book.id}`, cover, {
    contentType: "image/png",
    // Shown in place, saved as the book's title (made safe as archive names are, by sendBlob).
    filename: `${book.title}.png`,
    disposition: "inline",
    // Covers are public; a replaced cover changes the ETag, so a short max-age is enough.
    cacheControl: "public, max-age=300",
  });
};

export const uploadBookCover: AppRouteHandler<typeof routes.uploadBookCover> = async (c) => {
  const { db, clock, blobs } = c.get("deps");
  const { id } = c.req.valid("param");
  // 404 before a large body is read.
  await service.getBook(db, id);
  const file = await receiveFile(c, "cover");
  const book = await attachCover(db, auditSourceOf(c), id, file, clock.now(), blobs);
  return respondResource(c, BookResource, toBook(book));
};
