// The OPDS catalogs (README, Reading apps). Each feed page is one read of the caller's books
// (services/catalog.ts) rendered in either format; the signed file links are checked here and
// answered as every download is (http/stored-file.ts).
import type { Context } from "hono";
import { baseUrlOf } from "../../http/hal";
import { sendStoredFile } from "../../http/stored-file";
import type { AppBindings, AppRouteHandler } from "../../http/types";
import { forbidden } from "../../lib/problems";
import { atomAcquisitionFeed, atomNavigationFeed, openSearchDescription } from "../../opds/atom";
import {
  type FeedKind,
  OPDS_ATOM_ACQUISITION,
  OPDS_ATOM_NAVIGATION,
  OPDS_AUTHENTICATION,
  OPDS_JSON,
  OPENSEARCH_DESCRIPTION,
} from "../../opds/catalog";
import { authenticationDocument, opds2AcquisitionFeed, opds2NavigationFeed } from "../../opds/opds2";
import * as catalog from "../../services/catalog";
import { acceptsOpds2 } from "./accept";
import { acquisitionFeedOf, archiveFormatOf, coverPath, downloadPath, feedPaths } from "./catalog-feed";
import type * as routes from "./opds.routes";

const ATOM = feedPaths("/opds");
const OPDS2 = feedPaths("/opds/v2");

/** Feeds are the caller's own and carry links signed for them: no shared cache keeps one. */
const FEED_CACHE = "private, no-cache";

function document(c: Context<AppBindings>, type: string, body: string, vary = false): Response {
  const headers: Record<string, string> = { "Content-Type": type, "Cache-Control": FEED_CACHE };
  if (vary) headers.Vary = "Accept";
  return c.body(body, 200, headers);
}

/** An OPDS 2.0 document: JSON under its own media type (no charset: JSON is UTF-8). */
function json(c: Context<AppBindings>, body: Record<string, unknown>, vary = false) {
  const headers: Record<string, string> = { "Content-Type": OPDS_JSON, "Cache-Control": FEED_CACHE };
  if (vary) headers.Vary = "Accept";
  return c.json(body, 200, headers);
}

function queryOf(c: Context<AppBindings>, kind: FeedKind, terms?: string): catalog.CatalogQuery {
  if (kind === "search") return { kind, terms: terms ?? "" };
  return kind === "recent" ? { kind, now: c.get("deps").clock.now() } : { kind };
}

/** Page `page` of a feed, read and signed for the caller. */
async function readFeed(c: Context<AppBindings>, kind: FeedKind, request: { page?: number; q?: string }) {
  const page = request.page ?? 0;
  const read = await catalog.catalogPage(
    c.get("deps").db,
    c.get("principal").userUuid,
    queryOf(c, kind, request.q),
    page,
  );
  return acquisitionFeedOf(c, kind, read, page, request.q);
}

async function atomFeed(c: Context<AppBindings>, kind: FeedKind, request: { page?: number; q?: string }) {
  const value = await readFeed(c, kind, request);
  return document(c, OPDS_ATOM_ACQUISITION, atomAcquisitionFeed(baseUrlOf(c), ATOM, value));
}

async function opds2Feed(c: Context<AppBindings>, kind: FeedKind, request: { page?: number; q?: string }) {
  const value = await readFeed(c, kind, request);
  return json(c, opds2AcquisitionFeed(baseUrlOf(c), OPDS2, value));
}

export const getOpdsRoot: AppRouteHandler<typeof routes.getOpdsRoot> = async (c) => {
  const now = c.get("deps").clock.now();
  // The same URL serves both formats: caches must keep them apart.
  return acceptsOpds2(c.req.header("accept"))
    ? json(c, opds2NavigationFeed(baseUrlOf(c), OPDS2, now), true)
    : document(c, OPDS_ATOM_NAVIGATION, atomNavigationFeed(baseUrlOf(c), ATOM, now), true);
};

export const getOpds2Root: AppRouteHandler<typeof routes.getOpds2Root> = async (c) =>
  json(c, opds2NavigationFeed(baseUrlOf(c), OPDS2, c.get("deps").clock.now()));

export const getOpdsShelf: AppRouteHandler<typeof routes.getOpdsShelf> = (c) =>
  atomFeed(c, "shelf", c.req.valid("query"));
export const getOpdsRecent: AppRouteHandler<typeof routes.getOpdsRecent> = (c) =>
  atomFeed(c, "recent", c.req.valid("query"));
export const searchOpds: AppRouteHandler<typeof routes.searchOpds> = (c) =>
  atomFeed(c, "search", c.req.valid("query"));
export const getOpds2Shelf: AppRouteHandler<typeof routes.getOpds2Shelf> = (c) =>
  opds2Feed(c, "shelf", c.req.valid("query"));
export const getOpds2Recent: AppRouteHandler<typeof routes.getOpds2Recent> = (c) =>
  opds2Feed(c, "recent", c.req.valid("query"));
export const searchOpds2: AppRouteHandler<typeof routes.searchOpds2> = (c) =>
  opds2Feed(c, "search", c.req.valid("query"));

export const getOpdsSearchDescription: AppRouteHandler<typeof routes.getOpdsSearchDescription> = async (c) =>
  document(c, OPENSEARCH_DESCRIPTION, openSearchDescription(baseUrlOf(c), ATOM));

export const getOpdsAuthentication: AppRouteHandler<typeof routes.getOpdsAuthentication> = async (c) =>
  c.json(authenticationDocument(c.get("deps").config.publicUrl), 200, {
    "Content-Type": OPDS_AUTHENTICATION,
    "Cache-Control": "public, max-age=3600",
  });

/** One answer for every link that does not open: nothing tells a forged link from a stale one. */
const invalidLink = () =>
  forbidden(
    "This link is not valid (any more): it expired, or the file or your access changed. Reload the catalog.",
  );

function verified(
  c: Context<AppBindings>,
  link: { exp: number; sig: string },
  path: string,
  userUuid: string,
  sha256: string | null,
): boolean {
  const { exp, sig } = link;
  const now = Math.floor(c.get("deps").clock.now().getTime() / 1000);
  return (
    sha256 !== null &&
    c.get("runtime").linkSigner.verify({ path, userUuid, sha256, expiresAt: exp }, sig, now)
  );
}

export const downloadOpdsFile: AppRouteHandler<typeof routes.downloadOpdsFile> = async (c) => {
  const { userUUID, id } = c.req.valid("param");
  const held = await catalog.heldVersion(c.get("deps").db, userUUID, id);
  if (
    !held ||
    !verified(c, c.req.valid("query"), downloadPath(userUUID, id), userUUID, held.version.archiveSha256)
  ) {
    throw invalidLink();
  }
  const { version, book } = held;
  const format = archiveFormatOf(book, version);
  return sendStoredFile(
    c,
    `The archive of book version ${version.id}`,
    { sha256: version.archiveSha256, size: version.archiveSize, uploadedAt: version.archiveUploadedAt },
    {
      contentType: format.type,
      filename: format.filename,
      disposition: "attachment",
      // The link is the user's: no shared cache may keep the file.
      cacheControl: "private, no-cache",
    },
  );
};

export const getOpdsCover: AppRouteHandler<typeof routes.getOpdsCover> = async (c) => {
  const { userUUID, id } = c.req.valid("param");
  const book = await catalog.heldBook(c.get("deps").db, userUUID, id);
  if (!book || !verified(c, c.req.valid("query"), coverPath(userUUID, id), userUUID, book.coverSha256))
    throw invalidLink();
  return sendStoredFile(
    c,
    `The cover of book ${book.id}`,
    { sha256: book.coverSha256, size: book.coverSize, uploadedAt: book.coverUpdatedAt },
    {
      contentType: "image/png",
      filename: `${book.title}.png`,
      disposition: "inline",
      cacheControl: "private, max-age=3600",
    },
  );
};
