import { countHandler, resourceHandlers, sendStoredFile } from "../../http/handler-shapes";
import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/books";
import { attachCover } from "../../services/files";
import type * as routes from "./books.routes";
import { BookList, toBook } from "./books.schemas";

const books = resourceHandlers(BookList, toBook);

export const listBooks: AppRouteHandler<typeof routes.listBooks> = books.list(service.listBooks);

export const countBooks: AppRouteHandler<typeof routes.countBooks> = countHandler(service.countBooks);

export const getBook: AppRouteHandler<typeof routes.getBook> = books.byId(service.getBook);

export const createBook: AppRouteHandler<typeof routes.createBook> = books.create(
  service.createBook,
  "/book",
);

export const updateBook: AppRouteHandler<typeof routes.updateBook> = books.replace(service.replaceBook);

export const deleteBook: AppRouteHandler<typeof routes.deleteBook> = books.byId(service.removeBook);

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

export const uploadBookCover: AppRouteHandler<typeof routes.uploadBookCover> = books.upload(
  "cover",
  service.getBook,
  attachCover,
);
