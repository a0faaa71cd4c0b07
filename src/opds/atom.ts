// OPDS 1.2 (Atom) catalog documents: the root navigation feed, acquisition feeds and the
// OpenSearch 1.1 description their search link points at (README, Reading apps).
import {
  type AcquisitionFeed,
  FEED_TITLES,
  type FeedPaths,
  NAVIGATION,
  OPDS_ATOM_ACQUISITION,
  OPDS_ATOM_NAVIGATION,
  OPENSEARCH_DESCRIPTION,
  type Publication,
  pageHref,
  pagingLinks,
  REL_ACQUISITION,
  REL_IMAGE,
  REL_SHELF,
  REL_THUMBNAIL,
} from "./catalog";
import { el, renderXml, type XmlElement } from "./xml-writer";

const NAMESPACES = {
  xmlns: "http://www.w3.org/2005/Atom",
  "xmlns:opds": "http://opds-spec.org/2010/catalog",
  "xmlns:dc": "http://purl.org/dc/terms/",
  "xmlns:opensearch": "http://a9.com/-/spec/opensearch/1.1/",
};

const CATALOG_TITLE = "bookdist";

function link(rel: string, href: string, type: string, extra: XmlElement["attributes"] = {}): XmlElement {
  return el("link", { rel, href, type, ...extra });
}

/** What every feed of the catalog links to: itself, the root, the search and the shelf. */
function commonLinks(base: string, paths: FeedPaths, self: string, selfType: string): XmlElement[] {
  return [
    link("self", base + self, selfType),
    link("start", base + paths.root, OPDS_ATOM_NAVIGATION, { title: CATALOG_TITLE }),
    link("search", `${base}/opds/search.xml`, OPENSEARCH_DESCRIPTION, { title: "Search your books" }),
    link(REL_SHELF, base + paths.feed("shelf"), OPDS_ATOM_ACQUISITION, { title: FEED_TITLES.shelf }),
  ];
}

/** Atom needs an author on the feed or on every entry: the catalog itself, for entries without one. */
const feedAuthor = () => el("author", {}, el("name", {}, CATALOG_TITLE));

export function atomNavigationFeed(base: string, paths: FeedPaths, updated: Date): string {
  const when = updated.toISOString();
  return renderXml(
    el(
      "feed",
      NAMESPACES,
      el("id", {}, "urn:bookdist:opds:root"),
      el("title", {}, CATALOG_TITLE),
      el("updated", {}, when),
      feedAuthor(),
      ...commonLinks(base, paths, paths.root, OPDS_ATOM_NAVIGATION),
      ...NAVIGATION.map((entry) =>
        el(
          "entry",
          {},
          el("id", {}, entry.id),
          el("title", {}, entry.title),
          el("updated", {}, when),
          el("content", { type: "text" }, entry.summary),
          link(entry.rel, base + paths.feed(entry.kind), OPDS_ATOM_ACQUISITION),
        ),
      ),
    ),
  );
}

function entryOf(base: string, publication: Publication): XmlElement {
  const { acquisition, cover } = publication;
  return el(
    "entry",
    {},
    el("id", {}, publication.id),
    el("title", {}, publication.title),
    el("updated", {}, publication.updated.toISOString()),
    publication.author !== null && el("author", {}, el("name", {}, publication.author)),
    publication.language !== null && el("dc:language", {}, publication.language),
    publication.isbn !== null && el("dc:identifier", {}, `urn:isbn:${publication.isbn}`),
    publication.description !== null && el("summary", { type: "text" }, publication.description),
    cover !== null && link(REL_IMAGE, base + cover.href, cover.type),
    cover !== null && link(REL_THUMBNAIL, base + cover.href, cover.type),
    link(REL_ACQUISITION, base + acquisition.href, acquisition.type, {
      length: acquisition.size,
      title: acquisition.title,
    }),
  );
}

export function atomAcquisitionFeed(base: string, paths: FeedPaths, feed: AcquisitionFeed): string {
  const path = paths.feed(feed.kind);
  const { paging } = feed;
  return renderXml(
    el(
      "feed",
      NAMESPACES,
      el("id", {}, feed.id),
      el("title", {}, feed.title),
      el("updated", {}, feed.updated.toISOString()),
      feedAuthor(),
      ...commonLinks(base, paths, pageHref(path, paging.page, feed.query), OPDS_ATOM_ACQUISITION),
      link("up", base + paths.root, OPDS_ATOM_NAVIGATION),
      ...pagingLinks(paging).map(({ rel, page }) =>
        link(rel, base + pageHref(path, page, feed.query), OPDS_ATOM_ACQUISITION),
      ),
      el("opensearch:totalResults", {}, String(paging.total)),
      el("opensearch:itemsPerPage", {}, String(paging.pageSize)),
      el("opensearch:startIndex", {}, String(paging.page * paging.pageSize + 1)),
      ...feed.publications.map((publication) => entryOf(base, publication)),
    ),
  );
}

/** OpenSearch 1.1: where the Atom search is, `{searchTerms}` in its template. */
export function openSearchDescription(base: string, paths: FeedPaths): string {
  return renderXml(
    el(
      "OpenSearchDescription",
      { xmlns: "http://a9.com/-/spec/opensearch/1.1/" },
      el("ShortName", {}, CATALOG_TITLE),
      el("Description", {}, "Search your books by title or author"),
      el("InputEncoding", {}, "UTF-8"),
      el("OutputEncoding", {}, "UTF-8"),
      el("Url", { type: OPDS_ATOM_ACQUISITION, template: `${base}${paths.search}?q={searchTerms}` }),
    ),
  );
}
