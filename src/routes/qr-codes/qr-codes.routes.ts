import { defineRoute } from "../../http/define-route";
import { IdParam, jsonBody } from "../../http/openapi";
import { listContent, locationHeader, resourceContent } from "../../http/respond";
import { countRoute, listRoute, WHOLE_LIST_RULES } from "../../http/route-shapes";
import { listHeaders } from "../../http/sort-and-page";
import { qrCodeSortFields } from "../../repositories/qr-codes";
import * as schemas from "./qr-codes.schemas";

const tags = ["Activation QR code"];

const etagHeader = { ETag: { description: "Validator of the image", schema: { type: "string" as const } } };
const cacheControlHeader = {
  "Cache-Control": {
    description: "`private, no-cache`: kept, but checked again before use",
    schema: { type: "string" as const },
  },
};
const imageHeaders = {
  ...etagHeader,
  ...cacheControlHeader,
  "Content-Disposition": { description: "inline, with a file name", schema: { type: "string" as const } },
};
const notModified = {
  description: "Not modified: the If-None-Match tag is still current",
  headers: { ...etagHeader, ...cacheControlHeader },
};

export const listActivationQrCodes = listRoute("admin", {
  path: "/activation-qr-code",
  operationId: "listActivationQrCodes",
  summary: "List all activation QR codes",
  description: "With `code`, the one code it names (normalised as redemption does), or an empty list.",
  tags,
  list: schemas.QrCodeList,
  sortFields: qrCodeSortFields,
  filters: schemas.qrCodeFilters,
  returns: "The codes",
});

export const countActivationQrCodes = countRoute("admin", {
  path: "/activation-qr-code/count",
  operationId: "countActivationQrCodes",
  summary: "Count activation QR codes",
  description: "With `code`, 1 when that code exists, else 0 (the filter of listActivationQrCodes).",
  tags,
  query: schemas.QrCodeFilterQuery,
});

export const listActivationQrCodesOfBook = listRoute("admin", {
  path: "/activation-qr-code/ofbook/{bookId}",
  operationId: "listActivationQrCodesOfBook",
  summary: "List a book's activation QR codes",
  tags,
  params: schemas.BookIdParam,
  errors: ["NOT_FOUND"],
  list: schemas.QrCodeList,
  sortFields: qrCodeSortFields,
  returns: "The book's codes",
});

export const countActivationQrCodesOfBook = countRoute("admin", {
  path: "/activation-qr-code/ofbook/{bookId}/count",
  operationId: "countActivationQrCodesOfBook",
  summary: "Count a book's activation QR codes",
  tags,
  params: schemas.BookIdParam,
  errors: ["NOT_FOUND"],
});

export const getUnusedActivationQrCodesOfBook = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/ofbook/{bookId}/null-activations",
  operationId: "getUnusedActivationQrCodesOfBook",
  summary: "A book's codes that no activation was ever made from",
  description: `The codes that were never redeemed. A code whose activations were all deleted is not among them, although its activationCount is back to 0. ${WHOLE_LIST_RULES}`,
  tags,
  request: { params: schemas.BookIdParam },
  errors: ["NOT_FOUND", "TOO_MANY_REQUESTS"],
  responses: {
    200: resourceContent(schemas.NullActivationsResource, "The unused codes and how many there are"),
  },
});

export const getActivationQrCode = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/{id}",
  operationId: "getActivationQrCode",
  summary: "Get an activation QR code",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.QrCodeResource, "The code") },
});

export const getActivationQrCodeImage = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/{id}/qr",
  operationId: "getActivationQrCodeImage",
  summary: "The code as a QR symbol (PNG)",
  description:
    "Content: QR_PAYLOAD_TEMPLATE with `{code}` replaced (default: the bare code). Error correction M, quiet zone of 4 modules. `ETag`; a re-fetch with `If-None-Match` gets 304.",
  tags,
  request: { params: IdParam, query: schemas.QrImageQuery, headers: schemas.IfNoneMatchHeader },
  errors: ["NOT_FOUND"],
  responses: {
    200: {
      description: "The PNG, `size` pixels wide",
      headers: imageHeaders,
      content: { "image/png": { schema: { type: "string", format: "binary" } } },
    },
    304: notModified,
  },
});

export const getActivationQrCodeSvg = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/{id}/qr.svg",
  operationId: "getActivationQrCodeSvg",
  summary: "The code as a vector QR symbol (SVG)",
  description:
    "The same symbol as the PNG — content QR_PAYLOAD_TEMPLATE with `{code}` replaced, error correction M — drawn as vector rectangles on a white square that includes the quiet zone of 4 modules. The viewBox counts modules, so the symbol scales to any print size without loss. `ETag`; a re-fetch with `If-None-Match` gets 304.",
  tags,
  request: { params: IdParam, headers: schemas.IfNoneMatchHeader },
  errors: ["NOT_FOUND"],
  responses: {
    200: {
      description: "The SVG document",
      headers: {
        ...imageHeaders,
        "Content-Security-Policy": {
          description: "`default-src 'none'`: the document may load and run nothing",
          schema: { type: "string" },
        },
      },
      content: { "image/svg+xml": { schema: { type: "string" } } },
    },
    304: notModified,
  },
});

export const createActivationQrCode = defineRoute("admin", {
  method: "post",
  path: "/activation-qr-code",
  operationId: "createActivationQrCode",
  summary: "Make an activation QR code",
  description: "The code itself is made by the server: 80 random bits in Crockford base32.",
  tags,
  request: { body: jsonBody(schemas.QrCodeInput) },
  responses: {
    201: {
      ...resourceContent(schemas.QrCodeResource, "The new code"),
      headers: locationHeader("URL of the new code"),
    },
  },
});

export const createActivationQrCodeBatch = defineRoute("admin", {
  method: "post",
  path: "/activation-qr-code/batch",
  operationId: "createActivationQrCodeBatch",
  summary: "Make up to 10,000 activation QR codes at once",
  description:
    "All or none: the codes are made in one transaction. Answered as a list (HAL rel `activationQrCodes`).",
  tags,
  request: { body: jsonBody(schemas.QrCodeBatchInput) },
  responses: {
    // A whole list, never paged: X-Total-Count without Link.
    201: {
      ...listContent(schemas.QrCodeList, "The new codes"),
      headers: { "X-Total-Count": listHeaders["X-Total-Count"] },
    },
  },
});

export const setActivationQrCodeEnabled = defineRoute("admin", {
  method: "post",
  path: "/activation-qr-code/{id}/en-disable",
  operationId: "setActivationQrCodeEnabled",
  summary: "Enable or disable an activation QR code",
  description: "A disabled code cannot be redeemed (409 QR_CODE_DISABLED); activations made from it stay.",
  tags,
  request: { params: IdParam, body: jsonBody(schemas.EnableInput) },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.QrCodeResource, "The code") },
});
