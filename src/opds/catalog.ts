// What an OPDS catalog page says, in neither format: the Atom writer (atom.ts) and the OPDS 2
// writer (opds2.ts) render the same value, so both formats list the same books, links and paging.

export const OPDS_ATOM_NAVIGATION = "application/atom+xml;profile=opds-catalog;kind=navigation";
export const OPDS_ATOM_ACQUISITION = "application/atom+xml;profile=opds-catalog;kind=acquisition";
export const OPDS_JSON = "application/opds+json";
export const OPENSEARCH_DESCRIPTION = "application/opensearchdescription+xml";
export const OPDS_AUTHENTICATION = "application/opds-authentication+json";

export const REL_SHELF = "http://opds-spec.org/shelf";
export const REL_NEW = "http://opds-spec.org/sort/new";
export const REL_ACQUISITION = "http://opds-spec.org/acquisition";
export const REL_IMAGE = "http://opds-spec.org/image";
export const REL_THUMBNAIL = "http://opds-spec.org/image/thumbnail";
export const REL_AUTH_DOCUMENT = "http://opds-spec.org/auth/document";
export const AUTH_BASIC = "http://opds-spec.org/auth/basic";

/** The catalog's feeds besides the root; each has an Atom and an OPDS 2 form. */
export type FeedKind = "shelf" | "recent" | "search";

/** A feed's paging (RFC 5005): `page` counts from 0, as every list of the API does. */
export interface Paging {
  page: number;
  pageSize: number;
  total: number;
}

/**
 * A link to a file: a signed URL (README, Reading apps), root-relative like every path here (the
 * writers put PUBLIC_URL before it), its media type and what else is known.
 */
export interface FileLink {
  href: string;
  type: string;
  size?: number;
  width?: number;
  height?: number;
  title?: string;
}

export interface Publication {
  /** `urn:bookdist:book:<id>`: stable whatever changes in the book. */
  id: string;
  title: string;
  author: string | null;
  /** A BCP 47 tag (BookInput holds it to one), or null. */
  language: string | null;
  isbn: string | null;
  description: string | null;
  /** The book's own `updatedAt`. */
  updated: Date;
  acquisition: FileLink;
  cover: FileLink | null;
}

/** A navigation entry of the root: one of the feeds. */
export interface NavigationEntry {
  id: string;
  title: string;
  summary: string;
  rel: string;
  kind: FeedKind;
}

/** Where each feed lives, per format: `/opds/<kind>` and `/opds/v2/<kind>`. */
export interface FeedPaths {
  root: string;
  feed(kind: FeedKind): string;
  /** The search URL for `terms` (Atom: its description is `/opds/search.xml`). */
  search: string;
}

export interface AcquisitionFeed {
  kind: FeedKind;
  id: string;
  title: string;
  updated: Date;
  paging: Paging;
  /** The search terms of a search feed, carried into its paging links. */
  query?: string;
  publications: Publication[];
}

export const NAVIGATION: readonly NavigationEntry[] = [
  {
    id: "urn:bookdist:opds:shelf",
    title: "My books",
    summary: "Every book you hold, newest first.",
    rel: REL_SHELF,
    kind: "shelf",
  },
  {
    id: "urn:bookdist:opds:recent",
    title: "Recently updated",
    summary: "Your books with a new version in the last 90 days.",
    rel: REL_NEW,
    kind: "recent",
  },
];

export const FEED_TITLES: Record<FeedKind, string> = {
  shelf: "My books",
  recent: "Recently updated",
  search: "Search results",
};

/** The path of page `page` of a feed at `path` (page 0 has no parameter), with the search terms. */
export function pageHref(path: string, page: number, query?: string): string {
  const params = new URLSearchParams();
  if (query !== undefined) params.set("q", query);
  if (page > 0) params.set("page", String(page));
  const search = params.toString();
  return search === "" ? path : `${path}?${search}`;
}

/** RFC 5005's links of a page: first and last always, previous and next where there are such pages. */
export function pagingLinks(paging: Paging): { rel: string; page: number }[] {
  const last = Math.max(0, Math.ceil(paging.total / paging.pageSize) - 1);
  const links = [
    { rel: "first", page: 0 },
    { rel: "last", page: last },
  ];
  if (paging.page > 0) links.push({ rel: "previous", page: Math.min(paging.page - 1, last) });
  if (paging.page < last) links.push({ rel: "next", page: paging.page + 1 });
  return links;
}
