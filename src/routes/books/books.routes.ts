import { defineRoute } from "../../http/define-route";
import { uploadErrors } from "../../http/download-docs";
import { fileUploadBody, IdParam, jsonBody } from "../../http/openapi";
import { locationHeader, resourceContent } from "../../http/respond";
import { countRoute, downloadRoute, listRoute } from "../../http/route-shapes";
import { bookSortFields } from "../../repositories/books";
import { BookInput, BookList, BookResource } from "./books.schemas";

const tags = ["Book"];

/** The image types a cover upload takes, as the part's media types; JPEG and WebP are stored as PNG. */
const COVER_UPLOAD_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;

const coverFile = fileUploadBody("The cover: a PNG, JPEG or WebP image, stored as PNG");
const coverUploadBody = {
  ...coverFile,
  content: {
    "multipart/form-data": {
      ...coverFile.content["multipart/form-data"],
      encoding: { file: { contentType: COVER_UPLOAD_TYPES.join(", ") } },
    },
  },
};

export const listBooks = listRoute("user", {
  path: "/book",
  operationId: "listBooks",
  summary: "List books",
  description: "Whole list without `page`/`size`; `X-Total-Count` always, `Link` when paged.",
  tags,
  list: BookList,
  sortFields: bookSortFields,
  returns: "The books",
});

export const countBooks = countRoute("user", {
  path: "/book/count",
  operationId: "countBooks",
  summary: "Count books",
  tags,
});

export const getBook = defineRoute("user", {
  method: "get",
  path: "/book/{id}",
  operationId: "getBook",
  summary: "Get a book",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(BookResource, "The book") },
});

export const createBook = defineRoute("admin", {
  method: "post",
  path: "/book",
  operationId: "createBook",
  summary: "Create a book",
  tags,
  request: { body: jsonBody(BookInput) },
  responses: {
    201: { ...resourceContent(BookResource, "The new book"), headers: locationHeader("URL of the new book") },
  },
});

export const updateBook = defineRoute("admin", {
  method: "put",
  path: "/book/{id}",
  operationId: "updateBook",
  summary: "Replace a book's fields",
  description: "Replaces every writable field; a field left out becomes null.",
  tags,
  request: { params: IdParam, body: jsonBody(BookInput) },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(BookResource, "The updated book") },
});

export const deleteBook = defineRoute("admin", {
  method: "delete",
  path: "/book/{id}",
  operationId: "deleteBook",
  summary: "Delete a book",
  description:
    "Deletes its versions, QR codes and files. Refused with 409 while readers hold activations of it.",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND", "CONFLICT"],
  responses: { 200: resourceContent(BookResource, "The deleted book") },
});

export const getBookCover = downloadRoute("public", {
  path: "/book/{id}/cover",
  operationId: "getBookCover",
  summary: "Download a book's cover",
  description: "The cover PNG; 404 if the book or its cover is missing.",
  tags,
  params: IdParam,
  contentType: "image/png",
  returns: "The cover image",
});

export const uploadBookCover = defineRoute("admin", {
  method: "post",
  path: "/book/{id}/cover",
  operationId: "uploadBookCover",
  summary: "Upload a book's cover",
  description:
    "Multipart part `file`: a PNG, JPEG or WebP image (checked by content, not by name; anything else is 415) of at most 10,000 × 10,000 pixels and 40,000,000 pixels in all (415 otherwise, judged by the header before anything is decoded), at most MAX_COVER_BYTES. A PNG is stored as sent once its image data inflates to exactly the size its header declares (415 otherwise); a JPEG or WebP is decoded (its EXIF orientation applied, the first frame of an animated WebP) and stored as a PNG without metadata (no EXIF, XMP or colour profile; sRGB), so the cover is always `image/png`. Replaces an earlier cover.",
  tags,
  request: { params: IdParam, body: coverUploadBody },
  errors: ["NOT_FOUND", ...uploadErrors],
  responses: { 200: resourceContent(BookResource, "The book with its new cover") },
});
