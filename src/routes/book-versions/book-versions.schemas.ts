import { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../lib/hal";
import { Id, multiLine, optionalText, orNull, Timestamp, trimmed } from "../../lib/openapi";
import type { BookVersionRow } from "../../repositories/book-versions";

export const Archive = z
  .object({
    size: z.number().int().openapi({ example: 18_874_368 }),
    sha256: z
      .string()
      .openapi({ example: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae" }),
    filename: z.string().nullable().openapi({ example: "little-prince-1.2.zip" }),
    uploadedAt: Timestamp,
  })
  .openapi("Archive");

export const BookVersion = z
  .object({
    id: z.number().int().openapi({ example: 12 }),
    bookId: z.number().int().openapi({ example: 7 }),
    versionCode: z.number().int().openapi({ example: 3 }),
    versionName: z.string().openapi({ example: "1.2" }),
    releaseNotes: z.string().nullable().openapi({ example: "Fixed typos in chapter 4." }),
    archive: orNull(Archive),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("BookVersion");

export const BookVersionInput = z
  .object({
    bookId: Id.openapi({ description: "The book; must exist" }),
    versionCode: z
      .number()
      .int()
      .min(1)
      .max(2_147_483_647)
      .openapi({ example: 3, description: "Unique per book" }),
    versionName: trimmed(64, 1).openapi({ example: "1.2" }),
    releaseNotes: optionalText(10000, multiLine()).openapi({ example: "Fixed typos in chapter 4." }),
  })
  .openapi("BookVersionInput");

export function toBookVersion(row: BookVersionRow): z.infer<typeof BookVersion> {
  return {
    id: row.id,
    bookId: row.bookId,
    versionCode: row.versionCode,
    versionName: row.versionName,
    releaseNotes: row.releaseNotes,
    archive:
      row.archiveSha256 && row.archiveUploadedAt
        ? {
            size: row.archiveSize ?? 0,
            sha256: row.archiveSha256,
            filename: row.archiveFilename,
            uploadedAt: row.archiveUploadedAt.toISOString(),
          }
        : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export const BookVersionResource = halResource("BookVersion", BookVersion, {
  self: (version) => `/bookversion/${version.id}`,
  book: (version) => `/book/${version.bookId}`,
  download: (version) => `/bookversion/${version.id}/download`,
});

export const BookVersionList = halList("bookVersions", BookVersionResource);
