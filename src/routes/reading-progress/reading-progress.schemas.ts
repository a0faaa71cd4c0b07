import { z } from "@hono/zod-openapi";
import { Id, orNull, requestDateTime, singleLine, Timestamp, trimmed } from "../../http/openapi";
import { koreaderOf, locatorOf, type ReadingProgressRow } from "../../services/reading-progress";

const fraction = (description: string) => z.number().min(0).max(1).openapi({ description, example: 0.42 });

/** A Readium Locator (https://readium.org/architecture/models/locators/), each field bounded. */
export const Locator = z
  .object({
    href: singleLine().min(1).max(2048).openapi({ example: "OEBPS/chapter-03.xhtml" }),
    type: singleLine().min(1).max(255).openapi({ example: "application/xhtml+xml" }),
    title: singleLine().max(1000).optional().openapi({ example: "Chapter 3" }),
    locations: z
      .object({
        progression: fraction("Within the resource").optional(),
        totalProgression: fraction("Within the publication").optional(),
        position: z.number().int().min(1).max(10_000_000).optional().openapi({ example: 57 }),
      })
      .openapi({ description: "Other Readium location fields are not kept" }),
    text: z
      .object({
        before: z.string().max(1000).optional().openapi({ example: "It was a " }),
        highlight: z.string().max(1000).optional().openapi({ example: "dark and stormy" }),
        after: z.string().max(1000).optional().openapi({ example: " night" }),
      })
      .optional(),
  })
  .openapi("Locator");

export const ReadingProgress = z
  .object({
    bookId: Id,
    versionId: z.number().int().min(1).nullable().openapi({
      description: "The version KOReader read (found by its partial MD5); null for the API's writes",
      example: 12,
    }),
    percentage: fraction("How far into the book, shared by every app"),
    locator: orNull(Locator, "null when the latest write was KOReader's"),
    koreader: z
      .object({
        progress: z.string().openapi({
          description: "KOReader's own position (opaque)",
          example: "/body/DocFragment[12]/body/div/p[4]/text().83",
        }),
        device: z.string().openapi({ example: "Kobo Libra 2" }),
        deviceId: z.string().openapi({ example: "0E5C7A3B1F2D4E6A8B9C0D1E2F3A4B5C" }),
      })
      .nullable()
      .openapi({ description: "null unless the latest write was KOReader's" }),
    device: z.string().openapi({ example: "Thorium on the laptop" }),
    updatedAt: Timestamp,
  })
  .openapi("ReadingProgress");

export const ReadingProgressInput = z
  .object({
    percentage: fraction("How far into the book"),
    locator: orNull(Locator).optional(),
    device: trimmed(100, 1).openapi({ example: "Thorium on the laptop" }),
    modified: requestDateTime().openapi({
      description: "When the position was taken; older than the stored one → 409",
      example: "2026-11-21T10:04:05.123Z",
    }),
  })
  .openapi("ReadingProgressInput");

export function toReadingProgress(row: ReadingProgressRow): z.infer<typeof ReadingProgress> {
  return {
    bookId: row.bookId,
    versionId: row.versionId,
    percentage: row.percentage,
    locator: locatorOf(row),
    koreader: koreaderOf(row),
    device: row.device,
    updatedAt: row.updatedAt.toISOString(),
  };
}
