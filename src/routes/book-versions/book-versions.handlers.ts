import type { Context } from "hono";
import { sendBlob } from "../../lib/file-response";
import { receiveFile } from "../../lib/file-upload";
import { notFound } from "../../lib/problems";
import { respondCount, respondCreated, respondResource, respondWithList } from "../../lib/respond";
import type { AppBindings, AppRouteHandler } from "../../lib/types";
import * as service from "../../services/book-versions";
import { getBook } from "../../services/books";
import { assertEntitled } from "../../services/entitlement";
import { attachArchive } from "../../services/files";
import type * as routes from "./book-versions.routes";
import { BookVersionList, BookVersionResource, toBookVersion } from "./book-versions.schemas";

export const listBookVersions: AppRouteHandler<typeof routes.listBookVersions> = (c) => {
  const { db } = c.get("deps");
  return respondWithList(
    c,
    BookVersionList,
    c.req.valid("query"),
    (window) => service.listBookVersions(db, window),
    toBookVersion,
  );
};

export const listVersionsOfBook: AppRouteHandler<typeof routes.listVersionsOfBook> = (c) => {
  const { db } = c.get("deps");
  const { id: bookId } = c.req.valid("param");
  return respondWithList(
    c,
    BookVersionList,
    c.req.valid("query"),
    (window) => service.listVersionsOfBook(db, bookId, window),
    toBookVersion,
  );
};

export const countBookVersions: AppRouteHandler<typeof routes.countBookVersions> = async (c) => {
  return respondCount(c, await service.countBookVersions(c.get("deps").db));
};

export const getBookVersion: AppRouteHandler<typeof routes.getBookVersion> = async (c) => {
  const version = await service.getBookVersion(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

export const createBookVersion: AppRouteHandler<typeof routes.createBookVersion> = async (c) => {
  const { db, clock } = c.get("deps");
  const version = await service.createBookVersion(db, c.req.valid("json"), clock.now());
  c.header("Location", `/bookversion/${version.id}`);
  return respondCreated(c, BookVersionResource, toBookVersion(version));
};

export const updateBookVersion: AppRouteHandler<typeof routes.updateBookVersion> = async (c) => {
  const { db, clock } = c.get("deps");
  const version = await service.replaceBookVersion(
    db,
    c.req.valid("param").id,
    c.req.valid("json"),
    clock.now(),
  );
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

export const deleteBookVersion: AppRouteHandler<typeof routes.deleteBookVersion> = async (c) => {
  const version = await service.removeBookVersion(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

export const uploadArchive: AppRouteHandler<typeof routes.uploadArchive> = async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  await service.getBookVersion(deps.db, id); // 404 before the body is read
  const file = await receiveFile(deps, c.req.raw, "archive");
  const version = await attachArchive(deps.db, id, file, deps.clock.now(), deps.blobs);
  return respondResource(c, BookVersionResource, toBookVersion(version));
};

/** The version's archive, named after the book's title and the version. */
function sendArchive(c: Context<AppBindings>, bookTitle: string, version: service.BookVersionRow): Response {
  if (!version.archiveSha256 || !version.archiveUploadedAt)
    throw notFound(`The archive of book version ${version.id}`);
  return sendBlob(c.get("deps"), c.req.raw, {
    sha256: version.archiveSha256,
    size: version.archiveSize ?? 0,
    lastModified: version.archiveUploadedAt,
    contentType: "application/zip",
    filename: `${bookTitle}-${version.versionName}.zip`,
    disposition: "attachment",
    // Entitlement is checked per request: shared caches must not keep it.
    cacheControl: "private, no-cache",
  });
}

export const downloadArchive: AppRouteHandler<typeof routes.downloadArchive> = async (c) => {
  const { db } = c.get("deps");
  const version = await service.getBookVersion(db, c.req.valid("param").id);
  await assertEntitled(db, c.get("principal"), version.bookId);
  const book = await getBook(db, version.bookId);
  return sendArchive(c, book.title, version);
};

export const downloadNewestVersion: AppRouteHandler<typeof routes.downloadNewestVersion> = async (c) => {
  const { db } = c.get("deps");
  const book = await getBook(db, c.req.valid("param").id);
  await assertEntitled(db, c.get("principal"), book.id);
  return sendArchive(c, book.title, await service.getNewestVersion(db, book.id));
};
