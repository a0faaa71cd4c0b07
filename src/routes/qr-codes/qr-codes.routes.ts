import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../auth/access";
import { countResponse, errorResponses, IdParam, jsonBody, jsonContent } from "../../lib/openapi";
import { listHeaders, listQuery } from "../../lib/sort-and-page";
import {
  ActivationQrCode,
  BookIdParam,
  EnableInput,
  NullActivations,
  QrCodeBatchInput,
  QrCodeInput,
  QrImageQuery,
  qrCodeSortFields,
} from "./qr-codes.schemas";

const tags = ["Activation QR code"];
const bodyErrors = [
  "VALIDATION_FAILED",
  "INVALID_DEFINITION",
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
] as const;

export const listQrCodes = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code",
  operationId: "listActivationQrCodes",
  summary: "List all activation QR codes",
  description: "HAL rel `activationQrCodes`.",
  tags,
  request: { query: listQuery(qrCodeSortFields) },
  responses: {
    200: { ...jsonContent(z.array(ActivationQrCode), "The codes"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED"),
  },
});

export const countQrCodes = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/count",
  operationId: "countActivationQrCodes",
  summary: "Count activation QR codes",
  tags,
  responses: { ...countResponse },
});

export const listQrCodesOfBook = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/ofbook/{bookId}",
  operationId: "listActivationQrCodesOfBook",
  summary: "List a book's activation QR codes",
  description: "HAL rel `activationQrCodes`.",
  tags,
  request: { params: BookIdParam, query: listQuery(qrCodeSortFields) },
  responses: {
    200: { ...jsonContent(z.array(ActivationQrCode), "The book's codes"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const countQrCodesOfBook = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/ofbook/{bookId}/count",
  operationId: "countActivationQrCodesOfBook",
  summary: "Count a book's activation QR codes",
  tags,
  request: { params: BookIdParam },
  responses: { ...countResponse, ...errorResponses("VALIDATION_FAILED", "NOT_FOUND") },
});

export const getNullActivations = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/ofbook/{bookId}/null-activations",
  operationId: "getUnusedActivationQrCodesOfBook",
  summary: "A book's codes that no activation was ever made from",
  description:
    "The codes that were never redeemed. A code whose activations were all deleted is not among them, although its activationCount is back to 0.",
  tags,
  request: { params: BookIdParam },
  responses: {
    200: jsonContent(NullActivations, "The unused codes and how many there are"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const getQrCode = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/{id}",
  operationId: "getActivationQrCode",
  summary: "Get an activation QR code",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(ActivationQrCode, "The code"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const getQrCodeImage = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/{id}/qr",
  operationId: "getActivationQrCodeImage",
  summary: "The code as a QR symbol (PNG)",
  description:
    "Content: QR_PAYLOAD_TEMPLATE with `{code}` replaced (default: the bare code). Error correction M, quiet zone of 4 modules. `ETag`; a re-fetch with `If-None-Match` gets 304.",
  tags,
  request: { params: IdParam, query: QrImageQuery },
  responses: {
    200: {
      description: "The PNG, `size` pixels wide",
      headers: {
        ETag: { description: "Validator of the image", schema: { type: "string" } },
        "Content-Disposition": { description: "inline, with a file name", schema: { type: "string" } },
      },
      content: { "image/png": { schema: { type: "string", format: "binary" } } },
    },
    304: { description: "Not modified: the If-None-Match tag is still current" },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const getQrCodeSvg = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/{id}/qr.svg",
  operationId: "getActivationQrCodeSvg",
  summary: "The code as a vector QR symbol (SVG)",
  description:
    "The same symbol as the PNG — content QR_PAYLOAD_TEMPLATE with `{code}` replaced, error correction M — drawn as vector rectangles on a white square that includes the quiet zone of 4 modules. The viewBox counts modules, so the symbol scales to any print size without loss. `ETag`; a re-fetch with `If-None-Match` gets 304.",
  tags,
  request: { params: IdParam },
  responses: {
    200: {
      description: "The SVG document",
      headers: {
        ETag: { description: "Validator of the image", schema: { type: "string" } },
        "Content-Disposition": { description: "inline, with a file name", schema: { type: "string" } },
      },
      content: { "image/svg+xml": { schema: { type: "string" } } },
    },
    304: { description: "Not modified: the If-None-Match tag is still current" },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const createQrCode = defineRoute("admin", {
  method: "post",
  path: "/activation-qr-code",
  operationId: "createActivationQrCode",
  summary: "Make an activation QR code",
  description: "The code itself is made by the server: 80 random bits in Crockford base32.",
  tags,
  request: { body: jsonBody(QrCodeInput) },
  responses: {
    201: {
      ...jsonContent(ActivationQrCode, "The new code"),
      headers: { Location: { description: "URL of the new code", schema: { type: "string" } } },
    },
    ...errorResponses(...bodyErrors),
  },
});

export const createQrCodeBatch = defineRoute("admin", {
  method: "post",
  path: "/activation-qr-code/batch",
  operationId: "createActivationQrCodeBatch",
  summary: "Make up to 10,000 activation QR codes at once",
  description:
    "All or none: the codes are made in one transaction. Answered as a list (HAL rel `activationQrCodes`).",
  tags,
  request: { body: jsonBody(QrCodeBatchInput) },
  responses: {
    201: {
      ...jsonContent(z.array(ActivationQrCode), "The new codes"),
      headers: { "X-Total-Count": listHeaders["X-Total-Count"] },
    },
    ...errorResponses(...bodyErrors),
  },
});

export const setQrCodeEnabled = defineRoute("admin", {
  method: "post",
  path: "/activation-qr-code/{id}/en-disable",
  operationId: "setActivationQrCodeEnabled",
  summary: "Enable or disable an activation QR code",
  description: "A disabled code cannot be redeemed (409 QR_CODE_DISABLED); activations made from it stay.",
  tags,
  request: { params: IdParam, body: jsonBody(EnableInput) },
  responses: {
    200: jsonContent(ActivationQrCode, "The code"),
    ...errorResponses(...bodyErrors, "NOT_FOUND"),
  },
});
