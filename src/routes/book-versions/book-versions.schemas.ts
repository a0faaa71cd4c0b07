import { z } from "@hono/zod-openapi";
import { uploadedFileOf, uploadedFileSchema } from "../../http/download-docs";
import { halList, halResource } from "../../http/hal";
import { Id, orNull, timestamps, timestampsOf, versionFields, versionInputFields } from "../../http/openapi";
import type { BookVersionRow } from "../../repositories/book-versions";
import { archiveEpub, archiveFormat } from "../../services/archive-format";

const EpubMetadata = z
  .object({
    title: z.string().openapi({ example: "The Little Prince" }),
    creators: z.array(z.string()).openapi({ example: ["Antoine de Saint-Exupéry"] }),
    language: z.string().openapi({ example: "en" }),
    identifier: z.string().openapi({
      description: "The dc:identifier the package document's unique-identifier names",
      example: "urn:isbn:9780156012195",
    }),
    modified: z.string().nullable().openapi({
      description: "The package's dcterms:modified as written there (EPUB 3); null for EPUB 2",
      example: "2026-11-01T10:00:00Z",
    }),
  })
  .openapi("EpubMetadata", {
    description:
      "What the EPUB's package document (META-INF/container.xml → its first rootfile) says, read at upload",
  });

const Archive = uploadedFileSchema(
  "Archive",
  {
    size: 18_874_368,
    sha256: "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
    filename: "little-prince-1.2.epub",
  },
  {
    format: z.enum(["epub", "zip"]).openapi({
      description:
        "epub: the archive's mimetype entry holds application/epub+zip and its package document could be read; zip otherwise",
      example: "epub",
    }),
    epub: orNull(EpubMetadata),
  },
);

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

function archiveOf(row: BookVersionRow): z.infer<typeof Archive> | null {
  const file = uploadedFileOf(row, "archive");
  return file && { ...file, format: archiveFormat(row), epub: archiveEpub(row) };
}

export function toBookVersion(row: BookVersionRow): z.infer<typeof BookVersion> {
  return {
    id: row.id,
    bookId: row.bookId,
    versionCode: row.versionCode,
    versionName: row.versionName,
    releaseNotes: row.releaseNotes,
    archive: archiveOf(row),
    ...timestampsOf(row),
  };
}

export const BookVersionResource = halResource("BookVersion", BookVersion, {
  self: (version) => `/bookversion/${version.id}`,
  book: (version) => `/book/${version.bookId}`,
  download: (version) => `/bookversion/${version.id}/download`,
});

export const BookVersionList = halList("bookVersions", BookVersionResource);
