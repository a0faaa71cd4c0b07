import { z } from "@hono/zod-openapi";
import { uploadedFileOf, uploadedFileSchema } from "../../http/download-docs";
import { halList, halResource } from "../../http/hal";
import { Id, orNull, timestamps, timestampsOf, versionFields, versionInputFields } from "../../http/openapi";
import type { BookVersionRow } from "../../repositories/book-versions";

const Archive = uploadedFileSchema("Archive", {
  size: 18_874_368,
  sha256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
  filename: "little-prince-1.2.zip",
});

/** The version the document shows, in the answer and in the input. */
const example = { versionCode: 3, versionName: "1.2", releaseNotes: "Fixed typos in chapter 4." };

export const BookVersion = z
  .object({
    id: z.number().int().openapi({ example: 12 }),
    bookId: z.number().int().openapi({ example: 7 }),
    ...versionFields(example),
    archive: orNull(Archive),
    ...timestamps,
  })
  .openapi("BookVersion");

export const BookVersionInput = z
  .object({
    bookId: Id.openapi({ description: "The book; must exist" }),
    ...versionInputFields(example, "Unique per book"),
  })
  .openapi("BookVersionInput");

export function toBookVersion(row: BookVersionRow): z.infer<typeof BookVersion> {
  return {
    id: row.id,
    bookId: row.bookId,
    versionCode: row.versionCode,
    versionName: row.versionName,
    releaseNotes: row.releaseNotes,
    archive: uploadedFileOf(row, "archive"),
    ...timestampsOf(row),
  };
}

export const BookVersionResource = halResource("BookVersion", BookVersion, {
  self: (version) => `/bookversion/${version.id}`,
  book: (version) => `/book/${version.bookId}`,
  download: (version) => `/bookversion/${version.id}/download`,
});

export const BookVersionList = halList("bookVersions", BookVersionResource);
