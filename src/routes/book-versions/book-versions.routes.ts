import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../auth/access";
import { downloadResponses, RangeHeaders, uploadErrors } from "../../lib/download-docs";
import {
  countResponse,
  errorResponses,
  fileUploadBody,
  IdParam,
  jsonBody,
  jsonContent,
} from "../../lib/openapi";
import { listHeaders, listQuery } from "../../lib/sort-and-page";
import {
  BookVersion,
  BookVersionInput,
  bookVersionSortFields,
  versionsOfBookSortFields,
} from "./book-versions.schemas";

const tags = ["Book version"];
const bodyErrors = [
  "VALIDATION_FAILED",
  "INVALID_DEFINITION",
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
] as const;

export const listBookVersions = defineRoute("admin", {
  method: "get",
  path: "/bookversion",
  operationId: "listBookVersions",
  summary: "List all book versions",
  description: "HAL rel `bookVersions`.",
  tags,
  request: { query: listQuery(bookVersionSortFields) },
  responses: {
    200: { ...jsonContent(z.array(BookVersion), "The versions"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED"),
  },
});

export const countBookVersions = defineRoute("admin", {
  method: "get",
  path: "/bookversion/count",
  operationId: "countBookVersions",
  summary: "Count book versions",
  tags,
  responses: { ...countResponse },
});

export const getBookVersion = defineRoute("user", {
  method: "get",
  path: "/bookversion/{id}",
  operationId: "getBookVersion",
  summary: "Get a book version",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(BookVersion, "The version"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const createBookVersion = defineRoute("admin", {
  method: "post",
  path: "/bookversion",
  operationId: "createBookVersion",
  summary: "Create a book version",
  description: "The archive is uploaded afterwards with POST /bookversion/{id}/upload.",
  tags,
  request: { body: jsonBody(BookVersionInput) },
  responses: {
    201: {
      ...jsonContent(BookVersion, "The new version"),
      headers: { Location: { description: "URL of the new version", schema: { type: "string" } } },
    },
    ...errorResponses(...bodyErrors, "CONFLICT"),
  },
});

export const updateBookVersion = defineRoute("admin", {
  method: "put",
  path: "/bookversion/{id}",
  operationId: "updateBookVersion",
  summary: "Replace a book version's fields",
  tags,
  request: { params: IdParam, body: jsonBody(BookVersionInput) },
  responses: {
    200: jsonContent(BookVersion, "The updated version"),
    ...errorResponses(...bodyErrors, "NOT_FOUND", "CONFLICT"),
  },
});

export const deleteBookVersion = defineRoute("admin", {
  method: "delete",
  path: "/bookversion/{id}",
  operationId: "deleteBookVersion",
  summary: "Delete a book version and its archive",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(BookVersion, "The deleted version"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const listVersionsOfBook = defineRoute("user", {
  method: "get",
  path: "/book/{id}/bookversions",
  operationId: "listBookVersionsOfBook",
  summary: "List the versions of a book",
  description: "HAL rel `bookVersions`.",
  tags: ["Book"],
  request: { params: IdParam, query: listQuery(versionsOfBookSortFields) },
  responses: {
    200: { ...jsonContent(z.array(BookVersion), "The book's versions"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const uploadArchive = defineRoute("admin", {
  method: "post",
  path: "/bookversion/{id}/upload",
  operationId: "uploadBookVersionArchive",
  summary: "Upload a version's zip archive",
  description:
    "Multipart part `file`: a zip archive (valid local-file signature and end-of-central-directory record), at most MAX_ARCHIVE_BYTES. Replaces an earlier archive; the old one stays downloadable until the new one is complete.",
  tags,
  request: { params: IdParam, body: fileUploadBody("The zip archive") },
  responses: {
    200: jsonContent(BookVersion, "The version with its archive"),
    ...errorResponses(...uploadErrors),
  },
});

export const downloadArchive = defineRoute("entitled", {
  method: "get",
  path: "/bookversion/{id}/download",
  operationId: "downloadBookVersion",
  summary: "Download a version's archive",
  description: "404 if no archive was uploaded.",
  tags,
  request: { params: IdParam, headers: RangeHeaders },
  responses: downloadResponses("application/zip", "The zip archive"),
});

export const downloadNewestVersion = defineRoute("entitled", {
  method: "get",
  path: "/book/{id}/newest-book-version",
  operationId: "getNewestBookVersion",
  summary: "Download the newest version of a book",
  description: "The archive of the version with the highest versionCode that has one; 404 if none.",
  tags: ["Book"],
  request: { params: IdParam, headers: RangeHeaders },
  responses: downloadResponses("application/zip", "The zip archive of the newest version"),
});
