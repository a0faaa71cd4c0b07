// OPDS 2.0 (JSON) catalog documents: the root navigation feed, acquisition feeds and the
// authentication document (README, Reading apps). Plain values, serialised by the caller.
import {
  type AcquisitionFeed,
  AUTH_BASIC,
  FEED_TITLES,
  type FeedPaths,
  type FileLink,
  NAVIGATION,
  OPDS_AUTHENTICATION,
  OPDS_JSON,
  type Publication,
  pageHref,
  pagingLinks,
  REL_ACQUISITION,
  REL_SHELF,
} from "./catalog";

export interface Opds2Link {
  href: string;
  type?: string;
  rel?: string;
  title?: string;
  templated?: boolean;
  width?: number;
  height?: number;
  size?: number;
}

const CATALOG_TITLE = "bookdist";

function commonLinks(base: string, paths: FeedPaths, self: string): Opds2Link[] {
  return [
    { rel: "self", href: base + self, type: OPDS_JSON },
    { rel: "start", href: base + paths.root, type: OPDS_JSON, title: CATALOG_TITLE },
    // RFC 6570: the reader fills `q` in.
    { rel: "search", href: `${base}${paths.search}{?q}`, type: OPDS_JSON, templated: true },
    { rel: REL_SHELF, href: base + paths.feed("shelf"), type: OPDS_JSON, title: FEED_TITLES.shelf },
  ];
}

export function opds2NavigationFeed(base: string, paths: FeedPaths, updated: Date) {
  return {
    metadata: { title: CATALOG_TITLE, modified: updated.toISOString() },
    links: commonLinks(base, paths, paths.root),
    navigation: NAVIGATION.map((entry) => ({
      href: base + paths.feed(entry.kind),
      title: entry.title,
      type: OPDS_JSON,
      rel: entry.rel,
    })),
  };
}

function fileLink(base: string, file: FileLink, rel?: string): Opds2Link {
  return {
    href: base + file.href,
    type: file.type,
    ...(rel === undefined ? {} : { rel }),
    ...(file.title === undefined ? {} : { title: file.title }),
    ...(file.width === undefined ? {} : { width: file.width }),
    ...(file.height === undefined ? {} : { height: file.height }),
    ...(file.size === undefined || file.size <= 0 ? {} : { size: file.size }),
  };
}

function publicationOf(base: string, publication: Publication) {
  return {
    metadata: {
      "@type": "http://schema.org/Book",
      title: publication.title,
      identifier: publication.id,
      modified: publication.updated.toISOString(),
      ...(publication.author === null ? {} : { author: publication.author }),
      ...(publication.language === null ? {} : { language: publication.language }),
      ...(publication.description === null ? {} : { description: publication.description }),
    },
    links: [fileLink(base, publication.acquisition, REL_ACQUISITION)],
    ...(publication.cover === null ? {} : { images: [fileLink(base, publication.cover)] }),
  };
}

export function opds2AcquisitionFeed(base: string, paths: FeedPaths, feed: AcquisitionFeed) {
  const path = paths.feed(feed.kind);
  const { paging } = feed;
  const links: Opds2Link[] = [
    ...commonLinks(base, paths, pageHref(path, paging.page, feed.query)),
    { rel: "up", href: base + paths.root, type: OPDS_JSON },
    ...pagingLinks(paging).map(({ rel, page }) => ({
      rel,
      href: base + pageHref(path, page, feed.query),
      type: OPDS_JSON,
    })),
  ];
  return {
    metadata: {
      title: feed.title,
      modified: feed.updated.toISOString(),
      numberOfItems: paging.total,
      itemsPerPage: paging.pageSize,
      // OPDS 2 counts pages from 1; the URL's `page` counts from 0 like every list of the API.
      currentPage: paging.page + 1,
    },
    links,
    // A feed needs publications, navigation or groups, each with one item at least: an empty page
    // leads back to the root.
    ...(feed.publications.length > 0
      ? { publications: feed.publications.map((publication) => publicationOf(base, publication)) }
      : { navigation: [{ href: base + paths.root, title: CATALOG_TITLE, type: OPDS_JSON, rel: "start" }] }),
  };
}

/**
 * The OPDS Authentication Document: HTTP Basic with the account's e-mail (or login) and a device
 * token. Its `id` must be a URI: the document's own URL under PUBLIC_URL, else a URN.
 */
export function authenticationDocument(publicUrl: string | undefined) {
  const base = publicUrl ?? "";
  return {
    id: publicUrl === undefined ? "urn:bookdist:opds:authentication" : `${publicUrl}/opds/auth`,
    title: CATALOG_TITLE,
    description:
      "Sign in with your account's e-mail address and a device token made in your account (or its password).",
    authentication: [
      {
        type: AUTH_BASIC,
        labels: { login: "E-mail address", password: "Device token or password" },
      },
    ],
    links: [
      { rel: "self", href: `${base}/opds/auth`, type: OPDS_AUTHENTICATION },
      { rel: "start", href: `${base}/opds/v2`, type: OPDS_JSON },
    ],
  };
}
