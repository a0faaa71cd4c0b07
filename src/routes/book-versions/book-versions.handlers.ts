import type { Context } from "hono";
import { auditSourceOf } from "../../http/audit-source";
import { receiveFile } from "../../http/file-upload";
import {
  listRequestOf,
  respondCount,
  respondCreated,
  respondList,
  respondResource,
} from "../../http/respond";
import { sendStoredFile } from "../../http/stored-file";
import type { AppBindings, AppRouteHandler } from "../../http/types";
import { ARCHIVE_CONTENT_TYPE, archiveDownloadName } from "../../services/archive-format";
import * as service from "../../services/book-versions";
import { getBook } from "../../services/books";
import { assertEntitled } from "../../services/entitlement";
import { attachArchive } from "../../services/files";
import type * as routes from "./book-versions.routes";
import { BookVersionList, BookVersionResource, toBookVersion } from "./book-versions.schemas";

export const listBookVersions: AppRouteHandler<typeof routes.listBookVersions> = async (c) => {
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listBookVersions(c.get("deps").db, window);
  return respondList(c, BookVersionList, list, toBookVersion, paging, 200);
};

export const listBookVersionsOfBook: AppRouteHandler<typeof routes.listBookVersionsOfBook> = async (c) => {
  const { id } = c.req.valid("param");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listVersionsOfBook(c.get("deps").db, id, window);
  return respondList(c, BookVersionList, list, toBookVersion, paging, 200);
};

export const countBookVersions: AppRouteHandler<typeof routes.countBookVersions> = async (c) => {
  const count = await service.countBookVersions(c.get("deps").db);
  return respondCount(c, count);
};

export const getBookVersion: AppRouteHandler<typeof routes.getBookVersion> = async (c) => {
  const { id } = c.req.valid("param");
  const version = await service.getBookVersion(c.get("deps").db, id);
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

export const createBookVersion: AppRouteHandler<typeof routes.createBookVersion> = async (c) => {
  const { db, clock } = c.get("deps");
  const version = await service.createBookVersion(db, auditSourceOf(c), c.req.valid("json"), clock.now());
  return respondCreated(c, BookVersionResource, toBookVersion(version));
};

export const updateBookVersion: AppRouteHandler<typeof routes.updateBookVersion> = async (c) => {
  const { db, clock } = c.get("deps");
  const { id } = c.req.valid("param");
  const version = await service.replaceBookVersion(
    db,
    auditSourceOf(c),
    id,
    c.req.valid("json"),
    clock.now(),
  );
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

export const deleteBookVersion: AppRouteHandler<typeof routes.deleteBookVersion> = async (c) => {
  const { db, clock } = c.get("deps");
  const { id } = c.req.valid("param");
  const version = await service.removeBookVersion(db, auditSourceOf(c), id, clock.now());
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

export const uploadBookVersionArchive: AppRouteHandler<typeof routes.uploadBookVersionArchive> = async (
  c,
) => {
  const { db, clock, blobs } = c.get("deps");
  const { id } = c.req.valid("param");
  // 404 before a large body is read.
  await service.getBookVersion(db, id);
  const file = await receiveFile(c, "archive");
  const version = await attachArchive(db, auditSourceOf(c), id, file, clock.now(), blobs);
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

/** The version's archive, named after the book's title and the version (`.epub` for an EPUB). */
function sendArchive(
  c: Context<AppBindings>,
  bookTitle: string,
  version: service.BookVersionRow,
): Promise<Response> {
  const archive = {
    sha256: version.archiveSha256,
    size: version.archiveSize,
    uploadedAt: version.archiveUploadedAt,
  };
  return sendStoredFile(c, `The archive of book version ${version.id}`, archive, {
    // An EPUB keeps the original interface's type, with a name that opens in a reading app.
    contentType: ARCHIVE_CONTENT_TYPE,
    filename: archiveDownloadName(bookTitle, version),
    disposition: "attachment",
    // Entitlement is checked per request: shared caches must not keep it.
    cacheControl: "private, no-cache",
  });
}

export const downloadBookVersion: AppRouteHandler<typeof routes.downloadBookVersion> = async (c) => {
  const { db } = c.get("deps");
  const version = await service.getBookVersion(db, c.req.valid("param").id);
  await assertEntitled(db, c.get("principal"), version.bookId);
  const book = await getBook(db, version.bookId);
  return sendArchive(c, book.title, version);
};

export const getNewestBookVersion: AppRouteHandler<typeof routes.getNewestBookVersion> = async (c) => {
  const { db } = c.get("deps");
  const book = await getBook(db, c.req.valid("param").id);
  await assertEntitled(db, c.get("principal"), book.id);
  return sendArchive(c, book.title, await service.getNewestVersion(db, book.id));
};
