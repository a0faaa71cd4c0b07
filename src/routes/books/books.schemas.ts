import { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../http/hal";
import {
  multiLine,
  optionalText,
  orNull,
  singleLine,
  Timestamp,
  timestamps,
  timestampsOf,
  trimmed,
} from "../../http/openapi";
import { SINGLE_LINE } from "../../lib/control-characters";
import type { BookRow } from "../../repositories/books";
import { canonicalLanguageTag, normalizeIsbn } from "../../services/isbn";

const Cover = z
  .object({
    contentType: z.literal("image/png").openapi({ example: "image/png" }),
    size: z.number().int().openapi({ example: 48213 }),
    sha256: z
      .string()
      .openapi({ example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" }),
    width: z.number().int().openapi({ example: 600 }),
    height: z.number().int().openapi({ example: 900 }),
    updatedAt: Timestamp,
  })
  .openapi("Cover");

export const Book = z
  .object({
    id: z.number().int().openapi({ example: 7 }),
    title: z.string().openapi({ example: "The Little Prince" }),
    author: z.string().nullable().openapi({ example: "Antoine de Saint-Exupéry" }),
    isbn: z.string().nullable().openapi({ example: "9780156012195" }),
    description: z.string().nullable().openapi({ example: "A pilot meets a little prince in the desert." }),
    language: z.string().nullable().openapi({ example: "en" }),
    cover: orNull(Cover),
    ...timestamps,
  })
  .openapi("Book");

/**
 * An optional single-line field stored in the form `canonical` gives it: empty means absent (null),
 * and what `canonical` cannot read (null) is refused with `message`.
 */
function canonicalText(max: number, canonical: (value: string) => string | null, message: string) {
  return singleLine()
    .trim()
    .max(max)
    .nullish()
    .transform((value, ctx) => {
      if (!value) return null;
      const result = canonical(value);
      if (!result) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return result;
    })
    .openapi({ type: ["string", "null"], maxLength: max, pattern: SINGLE_LINE.source });
}

export const BookInput = z
  .object({
    title: trimmed(300, 1).openapi({ example: "The Little Prince" }),
    author: optionalText(300).openapi({ example: "Antoine de Saint-Exupéry" }),
    isbn: canonicalText(40, normalizeIsbn, "is not a valid ISBN-10 or ISBN-13 (check digit)").openapi({
      example: "978-0-15-601219-5",
      description: "ISBN-10 or -13; hyphens and spaces allowed, stored without",
    }),
    description: optionalText(10000, multiLine()).openapi({
      example: "A pilot meets a little prince in the desert.",
    }),
    language: canonicalText(35, canonicalLanguageTag, "is not a BCP 47 language tag").openapi({
      example: "en-GB",
      description: "BCP 47 language tag",
    }),
  })
  .openapi("BookInput");

export function toBook(row: BookRow): z.infer<typeof Book> {
  return {
    id: row.id,
    title: row.title,
    author: row.author,
    isbn: row.isbn,
    description: row.description,
    language: row.language,
    cover:
      row.coverSha256 && row.coverUpdatedAt
        ? {
            contentType: "image/png",
            size: row.coverSize ?? 0,
            sha256: row.coverSha256,
            width: row.coverWidth ?? 0,
            height: row.coverHeight ?? 0,
            updatedAt: row.coverUpdatedAt.toISOString(),
          }
        : null,
    ...timestampsOf(row),
  };
}

export const BookResource = halResource("Book", Book, {
  self: (book) => `/book/${book.id}`,
  cover: (book) => `/book/${book.id}/cover`,
  bookVersions: (book) => `/book/${book.id}/bookversions`,
  newestBookVersion: (book) => `/book/${book.id}/newest-book-version`,
  withVersionAndActivation: (book) => `/book/${book.id}/with-version-and-activation`,
});

export const BookList = halList("books", BookResource);
