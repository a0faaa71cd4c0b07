import type { Context } from "hono";
import { countText } from "../../lib/count-response";
import { respondResource } from "../../lib/hal";
import { notFound } from "../../lib/problems";
import { limitOffset, orderByOf, pagingOf, respondList } from "../../lib/sort-and-page";
import type { AppBindings, AppRouteHandler } from "../../lib/types";
import * as repo from "../../repositories/book-versions";
import type { BookRow } from "../../repositories/books";
import * as service from "../../services/book-versions";
import { getBook } from "../../services/books";
import { assertEntitled } from "../../services/entitlement";
import { attachArchive, receiveFile, sendBlob } from "../../services/files";
import type * as routes from "./book-versions.routes";
import { bookVersionLinks, toBookVersion } from "./book-versions.schemas";

export const listBookVersions: AppRouteHandler<typeof routes.listBookVersions> = async (c) => {
  const { db } = c.get("deps");
  const query = c.req.valid("query");
  const { bookVersion: v } = db.tables;
  const paging = pagingOf(query);
  const orderBy = orderByOf(
    query.sort,
    { id: v.id, bookId: v.bookId, versionCode: v.versionCode, createdAt: v.createdAt },
    v.id,
  );
  const [rows, total] = await Promise.all([
    repo.listBookVersions(db, { orderBy, ...limitOffset(paging) }),
    repo.countBookVersions(db),
  ]);
  return respondList(c, {
    rel: "bookVersions",
    items: rows.map(toBookVersion),
    total,
    paging,
    links: bookVersionLinks,
  }) as never;
};

export const listVersionsOfBook: AppRouteHandler<typeof routes.listVersionsOfBook> = async (c) => {
  const { db } = c.get("deps");
  const { id: bookId } = c.req.valid("param");
  const query = c.req.valid("query");
  await getBook(db, bookId);
  const { bookVersion: v } = db.tables;
  const paging = pagingOf(query);
  const orderBy = orderByOf(
    query.sort,
    { id: v.id, versionCode: v.versionCode, createdAt: v.createdAt },
    v.id,
  );
  const [rows, total] = await Promise.all([
    repo.listBookVersions(db, { bookId, orderBy, ...limitOffset(paging) }),
    repo.countBookVersions(db, bookId),
  ]);
  return respondList(c, {
    rel: "bookVersions",
    items: rows.map(toBookVersion),
    total,
    paging,
    links: bookVersionLinks,
  }) as never;
};

export const countBookVersions: AppRouteHandler<typeof routes.countBookVersions> = async (c) => {
  return countText(c, await repo.countBookVersions(c.get("deps").db)) as never;
};

export const getBookVersion: AppRouteHandler<typeof routes.getBookVersion> = async (c) => {
  const version = await service.getBookVersion(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, toBookVersion(version), (base) => bookVersionLinks(version, base)) as never;
};

export const createBookVersion: AppRouteHandler<typeof routes.createBookVersion> = async (c) => {
  const { db, clock } = c.get("deps");
  const version = await service.createBookVersion(db, c.req.valid("json"), clock.now());
  c.header("Location", `/bookversion/${version.id}`);
  return respondResource(c, toBookVersion(version), (base) => bookVersionLinks(version, base), 201) as never;
};

export const updateBookVersion: AppRouteHandler<typeof routes.updateBookVersion> = async (c) => {
  const { db, clock } = c.get("deps");
  const version = await service.replaceBookVersion(
    db,
    c.req.valid("param").id,
    c.req.valid("json"),
    clock.now(),
  );
  return respondResource(c, toBookVersion(version), (base) => bookVersionLinks(version, base)) as never;
};

export const deleteBookVersion: AppRouteHandler<typeof routes.deleteBookVersion> = async (c) => {
  const version = await service.removeBookVersion(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, toBookVersion(version), (base) => bookVersionLinks(version, base)) as never;
};

export const uploadArchive: AppRouteHandler<typeof routes.uploadArchive> = async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  await service.getBookVersion(deps.db, id); // 404 before the body is read
  const file = await receiveFile(deps, c.req.raw, "archive");
  const version = await attachArchive(deps.db, id, file, deps.clock.now(), deps.blobs);
  return respondResource(c, toBookVersion(version), (base) => bookVersionLinks(version, base)) as never;
};

function sendArchive(c: Context<AppBindings>, book: BookRow, version: repo.BookVersionRow): Response {
  if (!version.archiveSha256 || !version.archiveUploadedAt)
    throw notFound(`The archive of book version ${version.id}`);
  return sendBlob(c.get("deps"), c.req.raw, {
    sha256: version.archiveSha256,
    size: version.archiveSize ?? 0,
    lastModified: version.archiveUploadedAt,
    contentType: "application/zip",
    filename: `${book.title}-${version.versionName}.zip`,
    disposition: "attachment",
    // Entitlement is checked per request: shared caches must not keep it.
    cacheControl: "private, no-cache",
  });
}

export const downloadArchive: AppRouteHandler<typeof routes.downloadArchive> = async (c) => {
  const { db } = c.get("deps");
  const version = await service.getBookVersion(db, c.req.valid("param").id);
  await assertEntitled(db, c.get("principal"), version.bookId);
  return sendArchive(c, await getBook(db, version.bookId), version) as never;
};

export const downloadNewestVersion: AppRouteHandler<typeof routes.downloadNewestVersion> = async (c) => {
  const { db } = c.get("deps");
  const { id } = c.req.valid("param");
  const book = await getBook(db, id);
  await assertEntitled(db, c.get("principal"), book.id);
  const newest = await repo.findNewestVersion(db, book.id);
  if (!newest) throw notFound(`A version of book ${book.id} with an archive`);
  return sendArchive(c, book, newest) as never;
};
