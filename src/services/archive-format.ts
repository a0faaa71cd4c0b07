// What a book version's archive is (README "Book versions: archives and EPUBs"): the columns the
// recognition fills, read back for the API (BookVersion.archive.format / .epub), and the file
// names downloads give it. The API's downloads (downloadBookVersion, getNewestBookVersion) keep
// application/zip and only take the .epub name; OPDS serves an EPUB as application/epub+zip.
import type { ArchiveFormat, ArchiveRecognition, EpubMetadata } from "../storage/epub";

export type { ArchiveFormat, EpubMetadata } from "../storage/epub";

/** The media type of every archive download of the API (the original interface's). */
export const ARCHIVE_CONTENT_TYPE = "application/zip";
/** The media type an EPUB is served as where the client reads EPUBs (OPDS acquisition links). */
export const EPUB_CONTENT_TYPE = "application/epub+zip";

/** A book version's recognition columns. */
export interface ArchiveFormatColumns {
  archiveFormat: ArchiveFormat | null;
  archiveEpub: string | null;
}

/** The columns to store for what recogniseArchive found. */
export function archiveFormatFields(recognition: ArchiveRecognition): {
  archiveFormat: ArchiveFormat;
  archiveEpub: string | null;
} {
  return {
    archiveFormat: recognition.format,
    archiveEpub: recognition.epub ? JSON.stringify(recognition.epub) : null,
  };
}

/**
 * "epub" or "zip". An archive not yet recognised (stored before recognition existed, until the
 * start-up backfill reaches it) counts as a zip: what it was before.
 */
export function archiveFormat(version: ArchiveFormatColumns): ArchiveFormat {
  return version.archiveFormat === "epub" && version.archiveEpub !== null ? "epub" : "zip";
}

/** An EPUB's package metadata; null for a zip. */
export function archiveEpub(version: ArchiveFormatColumns): EpubMetadata | null {
  if (archiveFormat(version) !== "epub") return null;
  const stored = JSON.parse(version.archiveEpub!) as EpubMetadata;
  return {
    title: stored.title,
    creators: stored.creators,
    language: stored.language,
    identifier: stored.identifier,
    modified: stored.modified,
  };
}

/** The extension a download of the archive takes: `.epub` for an EPUB, `.zip` otherwise. */
export function archiveExtension(version: ArchiveFormatColumns): ".epub" | ".zip" {
  return archiveFormat(version) === "epub" ? ".epub" : ".zip";
}

/** The API download's name: `<book title>-<versionName>.zip`, or `….epub` for an EPUB. */
export function archiveDownloadName(
  bookTitle: string,
  version: ArchiveFormatColumns & { versionName: string },
): string {
  return `${bookTitle}-${version.versionName}${archiveExtension(version)}`;
}

/**
 * The name an EPUB downloads under from OPDS: `<author> - <title>.epub`, `<title>.epub` for a book
 * without an author. The book's own fields, not the package's: they are what the catalog shows.
 * http/file-response.ts makes it safe for the header (RFC 6266, `filename*` for non-ASCII).
 */
export function epubDownloadName(book: { title: string; author: string | null }): string {
  const author = book.author?.trim();
  return author ? `${author} - ${book.title}.epub` : `${book.title}.epub`;
}
