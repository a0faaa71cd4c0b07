// The OPDS catalogs (README, Reading apps): OPDS 1.2 (Atom) under /opds, OPDS 2.0 (JSON) under
// /opds/v2, the same feeds in both; the signed file links the feeds carry.
import { defineRoute } from "../../http/define-route";
import { downloadErrors, downloadResponses, RangeHeaders } from "../../http/download-docs";
import {
  OPDS_ATOM_ACQUISITION,
  OPDS_ATOM_NAVIGATION,
  OPDS_AUTHENTICATION,
  OPDS_JSON,
  OPENSEARCH_DESCRIPTION,
} from "../../opds/catalog";
import {
  FeedQuery,
  Opds2Feed,
  OpdsAuthenticationDocument,
  SearchQuery,
  SignedFileParams,
  SignedFileQuery,
} from "./opds.schemas";
import { opdsRoute } from "./opds-route";

const tags = ["OPDS"];

const PAGING =
  "50 entries a page (`page` from 0), with RFC 5005 `first`/`last`/`previous`/`next` links. Entries are the caller's books that have a downloadable version; their cover and download links are signed URLs that work without credentials for 24 h.";

const atom = (type: string, description: string) => ({
  description,
  headers: { "Cache-Control": { description: "`private, no-cache`", schema: { type: "string" as const } } },
  content: { [type]: { schema: { type: "string" as const } } },
});

const opds2 = (description: string) => ({
  description,
  headers: { "Cache-Control": { description: "`private, no-cache`", schema: { type: "string" as const } } },
  content: { [OPDS_JSON]: { schema: Opds2Feed } },
});

export const getOpdsRoot = opdsRoute({
  method: "get",
  path: "/opds",
  operationId: "getOpdsRoot",
  summary: "The OPDS catalog's root",
  description:
    "An OPDS 1.2 navigation feed (My books, Recently updated, search); with `Accept: application/opds+json` the OPDS 2.0 feed of `/opds/v2`. The URL to type into a reading app.",
  tags,
  responses: {
    200: {
      description: "The root navigation feed",
      headers: {
        Vary: { description: "`Accept`", schema: { type: "string" as const } },
        "Cache-Control": { description: "`private, no-cache`", schema: { type: "string" as const } },
      },
      content: {
        [OPDS_ATOM_NAVIGATION]: { schema: { type: "string" as const } },
        [OPDS_JSON]: { schema: Opds2Feed },
      },
    },
  },
});

export const getOpdsShelf = opdsRoute({
  method: "get",
  path: "/opds/shelf",
  operationId: "getOpdsShelf",
  summary: "My books (OPDS 1.2)",
  description: `The caller's books, newest activation first (rel \`http://opds-spec.org/shelf\`). ${PAGING}`,
  tags,
  request: { query: FeedQuery },
  responses: { 200: atom(OPDS_ATOM_ACQUISITION, "An acquisition feed") },
});

export const getOpdsRecent = opdsRoute({
  method: "get",
  path: "/opds/recent",
  operationId: "getOpdsRecent",
  summary: "Recently updated (OPDS 1.2)",
  description: `The caller's books whose newest version changed in the last 90 days, most recent first. ${PAGING}`,
  tags,
  request: { query: FeedQuery },
  responses: { 200: atom(OPDS_ATOM_ACQUISITION, "An acquisition feed") },
});

export const searchOpds = opdsRoute({
  method: "get",
  path: "/opds/search",
  operationId: "searchOpds",
  summary: "Search the caller's books (OPDS 1.2)",
  description: `Books whose title or author contains \`q\`, newest activation first. ${PAGING}`,
  tags,
  request: { query: SearchQuery },
  responses: { 200: atom(OPDS_ATOM_ACQUISITION, "An acquisition feed") },
});

export const getOpdsSearchDescription = opdsRoute({
  method: "get",
  path: "/opds/search.xml",
  operationId: "getOpdsSearchDescription",
  summary: "The OpenSearch 1.1 description of the search",
  tags,
  responses: { 200: atom(OPENSEARCH_DESCRIPTION, "The OpenSearch description") },
});

export const getOpds2Root = opdsRoute({
  method: "get",
  path: "/opds/v2",
  operationId: "getOpds2Root",
  summary: "The OPDS 2.0 catalog's root",
  tags,
  responses: { 200: opds2("The root navigation feed") },
});

export const getOpds2Shelf = opdsRoute({
  method: "get",
  path: "/opds/v2/shelf",
  operationId: "getOpds2Shelf",
  summary: "My books (OPDS 2.0)",
  description: `As \`/opds/shelf\`; \`metadata\` has \`numberOfItems\`, \`itemsPerPage\` and \`currentPage\` (from 1). ${PAGING}`,
  tags,
  request: { query: FeedQuery },
  responses: { 200: opds2("An OPDS 2.0 feed of publications") },
});

export const getOpds2Recent = opdsRoute({
  method: "get",
  path: "/opds/v2/recent",
  operationId: "getOpds2Recent",
  summary: "Recently updated (OPDS 2.0)",
  description: `As \`/opds/recent\`. ${PAGING}`,
  tags,
  request: { query: FeedQuery },
  responses: { 200: opds2("An OPDS 2.0 feed of publications") },
});

export const searchOpds2 = opdsRoute({
  method: "get",
  path: "/opds/v2/search",
  operationId: "searchOpds2",
  summary: "Search the caller's books (OPDS 2.0)",
  description: `As \`/opds/search\`; the feeds' templated \`search\` link is \`/opds/v2/search{?q}\`. ${PAGING}`,
  tags,
  request: { query: SearchQuery },
  responses: { 200: opds2("An OPDS 2.0 feed of publications") },
});

export const getOpdsAuthentication = defineRoute("public", {
  method: "get",
  path: "/opds/auth",
  operationId: "getOpdsAuthentication",
  summary: "The OPDS Authentication Document",
  description: "What the catalog's 401 carries: HTTP Basic with the account's e-mail and a device token.",
  tags,
  responses: {
    200: {
      description: "The authentication document",
      content: { [OPDS_AUTHENTICATION]: { schema: OpdsAuthenticationDocument } },
    },
  },
});

/** A version's file is an EPUB or another zip: both media types, with the download's headers. */
function archiveResponses() {
  const responses = downloadResponses("application/zip", "The book version's file");
  const epub = { "application/epub+zip": { schema: { type: "string" as const, format: "binary" } } };
  return {
    ...responses,
    200: { ...responses[200], content: { ...epub, ...responses[200].content } },
    206: { ...responses[206], content: { ...epub, ...responses[206].content } },
  };
}

const SIGNED =
  "Public, but only by a signed link from a feed: `exp` and `sig` must be the ones the feed gave (an HMAC over the path, the user, the exact file and the expiry), the link unexpired, and the user must still hold the book; otherwise 403.";

export const downloadOpdsFile = defineRoute("public", {
  method: "get",
  path: "/opds/download/{userUUID}/{id}",
  operationId: "downloadOpdsFile",
  summary: "A book version's file, by a signed link",
  description: `${SIGNED} An EPUB is served as \`application/epub+zip\`, any other archive as \`application/zip\`. Range, ETag and HEAD as every download.`,
  tags,
  request: { params: SignedFileParams, query: SignedFileQuery, headers: RangeHeaders },
  errors: [...downloadErrors, "FORBIDDEN"],
  responses: archiveResponses(),
});

export const getOpdsCover = defineRoute("public", {
  method: "get",
  path: "/opds/cover/{userUUID}/{id}",
  operationId: "getOpdsCover",
  summary: "A book's cover, by a signed link",
  description: `${SIGNED} Range, ETag and HEAD as every download.`,
  tags,
  request: { params: SignedFileParams, query: SignedFileQuery, headers: RangeHeaders },
  errors: [...downloadErrors, "FORBIDDEN"],
  responses: downloadResponses("image/png", "The cover PNG"),
});
