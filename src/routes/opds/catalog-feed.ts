// From the catalog's rows to the feeds' value (opds/catalog.ts): every book with its signed
// download and cover links, and the page's paging.
import type { Context } from "hono";
import { SIGNED_LINK_TTL_SECONDS } from "../../auth/signed-links";
import type { AppBindings } from "../../http/types";
import type { AcquisitionFeed, FeedKind, FeedPaths, FileLink, Publication } from "../../opds/catalog";
import { FEED_TITLES } from "../../opds/catalog";
import type { HeldBookRow } from "../../repositories/activations";
import {
  ARCHIVE_CONTENT_TYPE,
  type ArchiveFormatColumns,
  archiveDownloadName,
  archiveFormat,
  EPUB_CONTENT_TYPE,
  epubDownloadName,
} from "../../services/archive-format";
import { CATALOG_PAGE_SIZE, type CatalogPage } from "../../services/catalog";

/** Where each feed lives in OPDS 1.2 (`/opds/...`) and OPDS 2.0 (`/opds/v2/...`): the same names. */
export function feedPaths(root: "/opds" | "/opds/v2"): FeedPaths {
  return { root, feed: (kind: FeedKind) => `${root}/${kind}`, search: `${root}/search` };
}

export const downloadPath = (userUuid: string, versionId: number) =>
  `/opds/download/${userUuid}/${versionId}`;
export const coverPath = (userUuid: string, bookId: number) => `/opds/cover/${userUuid}/${bookId}`;

/**
 * The file's media type and its name on the reader's disk: an EPUB as an EPUB (reading apps open
 * it by its type), `<author> - <title>.epub`; any other archive as the API serves it.
 */
export function archiveFormatOf(
  book: { title: string; author: string | null },
  version: ArchiveFormatColumns & { versionName: string },
) {
  return archiveFormat(version) === "epub"
    ? { type: EPUB_CONTENT_TYPE, filename: epubDownloadName(book) }
    : { type: ARCHIVE_CONTENT_TYPE, filename: archiveDownloadName(book.title, version) };
}

type Signer = (path: string, sha256: string) => string;

function signerFor(c: Context<AppBindings>, userUuid: string): Signer {
  const { linkSigner } = c.get("runtime");
  const expiresAt = Math.floor(c.get("deps").clock.now().getTime() / 1000) + SIGNED_LINK_TTL_SECONDS;
  return (path, sha256) => {
    const sig = linkSigner.sign({ path, userUuid, sha256, expiresAt });
    return `${path}?exp=${expiresAt}&sig=${sig}`;
  };
}

function publicationOf(row: HeldBookRow, userUuid: string, sign: Signer): Publication | null {
  const { book, newestVersion: version } = row;
  if (!version?.archiveSha256) return null;
  const acquisition: FileLink = {
    href: sign(downloadPath(userUuid, version.id), version.archiveSha256),
    type: archiveFormatOf(book, version).type,
    size: version.archiveSize ?? undefined,
    title: version.versionName,
  };
  const cover: FileLink | null = book.coverSha256
    ? {
        href: sign(coverPath(userUuid, book.id), book.coverSha256),
        type: "image/png",
        width: book.coverWidth ?? undefined,
        height: book.coverHeight ?? undefined,
      }
    : null;
  return {
    id: `urn:bookdist:book:${book.id}`,
    title: book.title,
    author: book.author,
    // A BCP 47 tag, as BookInput requires (OPDS 2 does too).
    language: book.language,
    isbn: book.isbn,
    description: book.description,
    updated: book.updatedAt,
    acquisition,
    cover,
  };
}

/** One page of a feed, its links signed for the caller. */
export function acquisitionFeedOf(
  c: Context<AppBindings>,
  kind: FeedKind,
  read: CatalogPage,
  page: number,
  query?: string,
): AcquisitionFeed {
  const { userUuid } = c.get("principal");
  const sign = signerFor(c, userUuid);
  return {
    kind,
    id:
      query === undefined
        ? `urn:bookdist:opds:${kind}`
        : `urn:bookdist:opds:search:${encodeURIComponent(query)}`,
    title: query === undefined ? FEED_TITLES[kind] : `${FEED_TITLES.search}: ${query}`,
    updated: c.get("deps").clock.now(),
    paging: { page, pageSize: CATALOG_PAGE_SIZE, total: read.total },
    query,
    publications: read.rows.flatMap((row) => publicationOf(row, userUuid, sign) ?? []),
  };
}
