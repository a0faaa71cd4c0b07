import type { Context } from "hono";
import { countHandler, resourceHandlers, sendStoredFile } from "../../http/handler-shapes";
import type { AppBindings, AppRouteHandler } from "../../http/types";
import * as service from "../../services/book-versions";
import { getBook } from "../../services/books";
import { assertEntitled } from "../../services/entitlement";
import { attachArchive } from "../../services/files";
import type * as routes from "./book-versions.routes";
import { BookVersionList, toBookVersion } from "./book-versions.schemas";

const bookVersions = resourceHandlers(BookVersionList, toBookVersion);

export const listBookVersions: AppRouteHandler<typeof routes.listBookVersions> = bookVersions.list(
  service.listBookVersions,
);

export const listBookVersionsOfBook: AppRouteHandler<typeof routes.listBookVersionsOfBook> =
  bookVersions.listUnder("id", service.listVersionsOfBook);

export const countBookVersions: AppRouteHandler<typeof routes.countBookVersions> = countHandler(
  service.countBookVersions,
);

export const getBookVersion: AppRouteHandler<typeof routes.getBookVersion> = bookVersions.byId(
  service.getBookVersion,
);

export const createBookVersion: AppRouteHandler<typeof routes.createBookVersion> = bookVersions.create(
  service.createBookVersion,
  "/bookversion",
);

export const updateBookVersion: AppRouteHandler<typeof routes.updateBookVersion> = bookVersions.replace(
  service.replaceBookVersion,
);

export const deleteBookVersion: AppRouteHandler<typeof routes.deleteBookVersion> = bookVersions.byId(
  service.removeBookVersion,
);

export const uploadBookVersionArchive: AppRouteHandler<typeof routes.uploadBookVersionArchive> =
  bookVersions.upload("archive", service.getBookVersion, attachArchive);

/** The version's archive, named after the book's title and the version. */
function sendArchive(c: Context<AppBindings>, bookTitle: string, version: service.BookVersionRow): Response {
  const archive = {
    sha256: version.archiveSha256,
    size: version.archiveSize,
    uploadedAt: version.archiveUploadedAt,
  };
  return sendStoredFile(c, `The archive of book version ${version.id}`, archive, {
    contentType: "application/zip",
    filename: `${bookTitle}-${version.versionName}.zip`,
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
