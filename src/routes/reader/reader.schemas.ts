import { z } from "@hono/zod-openapi";
import type { Links } from "../../lib/hal";
import { orNull, Timestamp } from "../../lib/openapi";
import type { ActivationRow } from "../../repositories/activations";
import type { BookVersionRow } from "../../repositories/book-versions";
import type { BookRow } from "../../repositories/books";
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

export function toMyBook(
  activation: ActivationRow,
  book: BookRow,
  newest: BookVersionRow | null | undefined,
): z.infer<typeof MyBook> {
  return {
    activationId: activation.id,
    activatedAt: activation.createdAt.toISOString(),
    book: toBook(book),
    newestVersion: newest ? toBookVersion(newest) : null,
  };
}

export function toBookWithVersionAndActivation(
  book: BookRow,
  newest: BookVersionRow | null | undefined,
  activation: ActivationRow | null,
): z.infer<typeof BookWithVersionAndActivation> {
  return {
    book: toBook(book),
    newestVersion: newest ? toBookVersion(newest) : null,
    activation: activation ? toActivation(activation) : null,
  };
}

export function myBookLinks(item: { activationId: number; book: { id: number } }, base: string): Links {
  const book = `${base}/book/${item.book.id}`;
  return {
    self: { href: `${base}/activation/${item.activationId}` },
    book: { href: book },
    newestBookVersion: { href: `${book}/newest-book-version` },
  };
}

export function bookWithVersionAndActivationLinks(
  item: { book: { id: number }; activation: { id: number } | null },
  base: string,
): Links {
  const book = `${base}/book/${item.book.id}`;
  return {
    self: { href: `${book}/with-version-and-activation` },
    book: { href: book },
    newestBookVersion: { href: `${book}/newest-book-version` },
    ...(item.activation ? { activation: { href: `${base}/activation/${item.activation.id}` } } : {}),
  };
}

export const myBookSortFields = ["activatedAt", "title"] as const;
export const activationsOfBookSortFields = ["id", "createdAt"] as const;
