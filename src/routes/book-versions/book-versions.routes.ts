import { defineRoute } from "../../http/define-route";
import { uploadErrors } from "../../http/download-docs";
import { fileUploadBody, IdParam, jsonBody } from "../../http/openapi";
import { locationHeader, resourceContent } from "../../http/respond";
import { countRoute, downloadRoute, listRoute } from "../../http/route-shapes";
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

export const getBookVersion = defineRoute("user", {
  method: "get",
  path: "/bookversion/{id}",
  operationId: "getBookVersion",
  summary: "Get a book version",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(BookVersionResource, "The version") },
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
      headers: locationHeader("URL of the new version"),
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

export const listBookVersionsOfBook = listRoute("user", {
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

export const uploadBookVersionArchive = defineRoute("admin", {
  method: "post",
  path: "/bookversion/{id}/upload",
  operationId: "uploadBookVersionArchive",
  summary: "Upload a version's zip archive",
  description:
    "Multipart part `file`: a zip archive, at most MAX_ARCHIVE_BYTES. Checked by content: 415 when an entry name is absolute (`/…`, `C:…`), has a `..` segment or a backslash, or when the central directory does not match the local headers (names, methods, sizes, offsets, the number of entries in the end record). Replaces an earlier archive; the old one stays downloadable until the new one is complete.",
  tags,
  request: { params: IdParam, body: fileUploadBody("The zip archive") },
  errors: ["NOT_FOUND", ...uploadErrors],
  responses: { 200: resourceContent(BookVersionResource, "The version with its archive") },
});

export const downloadBookVersion = downloadRoute("entitled", {
  path: "/bookversion/{id}/download",
  operationId: "downloadBookVersion",
  summary: "Download a version's archive",
  description: "404 if no archive was uploaded.",
  tags,
  params: IdParam,
  contentType: "application/zip",
  returns: "The zip archive",
});

export const getNewestBookVersion = downloadRoute("entitled", {
  path: "/book/{id}/newest-book-version",
  operationId: "getNewestBookVersion",
  summary: "Download the newest version of a book",
  description: "The archive of the version with the highest versionCode that has one; 404 if none.",
  tags: ["Book"],
  params: IdParam,
  contentType: "application/zip",
  returns: "The zip archive of the newest version",
});
