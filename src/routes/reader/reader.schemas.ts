import { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../http/hal";
import { orNull, Timestamp } from "../../http/openapi";
import type { BookWithActivationRow, HeldBookRow } from "../../repositories/activations";
import { Activation, toActivation } from "../activations/activations.schemas";
import { BookVersion, toBookVersion } from "../book-versions/book-versions.schemas";
import { Book, toBook } from "../books/books.schemas";

export const MyBook = z
  .object({
    activationId: z.number().int().openapi({ example: 31 }),
    activatedAt: Timestamp,
    book: Book,
    newestVersion: orNull(BookVersion, "null until a version has an archive"),
  })
  .openapi("MyBook");

export const BookWithVersionAndActivation = z
  .object({
    book: Book,
    newestVersion: orNull(BookVersion, "null until a version has an archive"),
    activation: orNull(Activation, "The caller's activation, or null"),
  })
  .openapi("BookWithVersionAndActivation");

export function toMyBook(row: HeldBookRow): z.infer<typeof MyBook> {
  return {
    activationId: row.activation.id,
    activatedAt: row.activation.createdAt.toISOString(),
    book: toBook(row.book),
    newestVersion: row.newestVersion ? toBookVersion(row.newestVersion) : null,
  };
}

export function toBookWithVersionAndActivation(
  row: BookWithActivationRow,
): z.infer<typeof BookWithVersionAndActivation> {
  return {
    book: toBook(row.book),
    newestVersion: row.newestVersion ? toBookVersion(row.newestVersion) : null,
    activation: row.activation ? toActivation(row.activation) : null,
  };
}

// A shelf entry is the activation that put the book there: `self` is that activation.
const MyBookResource = halResource("MyBook", MyBook, {
  self: (item) => `/activation/${item.activationId}`,
  book: (item) => `/book/${item.book.id}`,
  newestBookVersion: (item) => `/book/${item.book.id}/newest-book-version`,
});

export const MyBookList = halList("myBooks", MyBookResource);

export const BookWithVersionAndActivationResource = halResource(
  "BookWithVersionAndActivation",
  BookWithVersionAndActivation,
  {
    self: (item) => `/book/${item.book.id}/with-version-and-activation`,
    book: (item) => `/book/${item.book.id}`,
    newestBookVersion: (item) => `/book/${item.book.id}/newest-book-version`,
    activation: { optional: (item) => (item.activation ? `/activation/${item.activation.id}` : null) },
  },
);

export const BookWithVersionAndActivationList = halList(
  "booksWithVersionAndActivation",
  BookWithVersionAndActivationResource,
);
