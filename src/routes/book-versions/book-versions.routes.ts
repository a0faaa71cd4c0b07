import { defineRoute } from "../../lib/define-route";
import { downloadErrors, downloadResponses, RangeHeaders, uploadErrors } from "../../lib/download-docs";
import { fileUploadBody, IdParam, jsonBody } from "../../lib/openapi";
import { resourceContent } from "../../lib/respond";
import { countRoute, getRoute, listRoute } from "../../lib/route-shapes";
import { bookVersionSortFields, versionsOfBookSortFields } from "../../repositories/book-versions";
import { BookVersionInput, BookVersionList, BookVersionResource } from "./book-versions.schemas";

const tags = ["Book version"];

export const listBookVersions = listRoute("admin", {
  path: "/bookversion",
  operationId: "listBookVersions",
  summary: "List all book versions",
  tags,
  list: BookVersionList,
  sortFields: bookVersionSortFields,
  returns: "The versions",
});

export const countBookVersions = countRoute("admin", {
  path: "/bookversion/count",
  operationId: "countBookVersions",
  summary: "Count book versions",
  tags,
});

export const getBookVersion = getRoute("user", {
  path: "/bookversion/{id}",
  operationId: "getBookVersion",
  summary: "Get a book version",
  tags,
  resource: BookVersionResource,
  returns: "The version",
});

export const createBookVersion = defineRoute("admin", {
  method: "post",
  path: "/bookversion",
  operationId: "createBookVersion",
  summary: "Create a book version",
  description: "The archive is uploaded afterwards with POST /bookversion/{id}/upload.",
  tags,
  request: { body: jsonBody(BookVersionInput) },
  errors: ["CONFLICT"],
  responses: {
    201: {
      ...resourceContent(BookVersionResource, "The new version"),
      headers: { Location: { description: "URL of the new version", schema: { type: "string" } } },
    },
  },
});

export const updateBookVersion = defineRoute("admin", {
  method: "put",
  path: "/bookversion/{id}",
  operationId: "updateBookVersion",
  summary: "Replace a book version's fields",
  tags,
  request: { params: IdParam, body: jsonBody(BookVersionInput) },
  errors: ["NOT_FOUND", "CONFLICT"],
  responses: { 200: resourceContent(BookVersionResource, "The updated version") },
});

export const deleteBookVersion = defineRoute("admin", {
  method: "delete",
  path: "/bookversion/{id}",
  operationId: "deleteBookVersion",
  summary: "Delete a book version and its archive",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(BookVersionResource, "The deleted version") },
});

export const listVersionsOfBook = listRoute("user", {
  path: "/book/{id}/bookversions",
  operationId: "listBookVersionsOfBook",
  summary: "List the versions of a book",
  tags: ["Book"],
  params: IdParam,
  errors: ["NOT_FOUND"],
  list: BookVersionList,
  sortFields: versionsOfBookSortFields,
  returns: "The book's versions",
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
  errors: uploadErrors,
  responses: { 200: resourceContent(BookVersionResource, "The version with its archive") },
});

export const downloadArchive = defineRoute("entitled", {
  method: "get",
  path: "/bookversion/{id}/download",
  operationId: "downloadBookVersion",
  summary: "Download a version's archive",
  description: "404 if no archive was uploaded.",
  tags,
  request: { params: IdParam, headers: RangeHeaders },
  errors: downloadErrors,
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
  errors: downloadErrors,
  responses: downloadResponses("application/zip", "The zip archive of the newest version"),
});
