import { sendBlob } from "../../lib/file-response";
import { receiveFile } from "../../lib/file-upload";
import { notFound } from "../../lib/problems";
import { respondCount, respondCreated, respondResource, respondWithList } from "../../lib/respond";
import type { AppRouteHandler } from "../../lib/types";
import * as service from "../../services/books";
import { attachCover } from "../../services/files";
import type * as routes from "./books.routes";
import { BookList, BookResource, toBook } from "./books.schemas";

export const listBooks: AppRouteHandler<typeof routes.listBooks> = (c) => {
  const { db } = c.get("deps");
  return respondWithList(
    c,
    BookList,
    c.req.valid("query"),
    (window) => service.listBooks(db, window),
    toBook,
  );
};

export const countBooks: AppRouteHandler<typeof routes.countBooks> = async (c) => {
  return respondCount(c, await service.countBooks(c.get("deps").db));
};

export const getBook: AppRouteHandler<typeof routes.getBook> = async (c) => {
  const book = await service.getBook(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, BookResource, toBook(book));
};

export const createBook: AppRouteHandler<typeof routes.createBook> = async (c) => {
  const { db, clock } = c.get("deps");
  const book = await service.createBook(db, c.req.valid("json"), clock.now());
  c.header("Location", `/book/${book.id}`);
  return respondCreated(c, BookResource, toBook(book));
};

export const updateBook: AppRouteHandler<typeof routes.updateBook> = async (c) => {
  const { db, clock } = c.get("deps");
  const book = await service.replaceBook(db, c.req.valid("param").id, c.req.valid("json"), clock.now());
  return respondResource(c, BookResource, toBook(book));
};

export const deleteBook: AppRouteHandler<typeof routes.deleteBook> = async (c) => {
  const book = await service.removeBook(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, BookResource, toBook(book));
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
  });
};

export const uploadCover: AppRouteHandler<typeof routes.uploadCover> = async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  await service.getBook(deps.db, id); // 404 before the body is read
  const file = await receiveFile(deps, c.req.raw, "cover");
  const book = await attachCover(deps.db, id, file, deps.clock.now(), deps.blobs);
  return respondResource(c, BookResource, toBook(book));
};
