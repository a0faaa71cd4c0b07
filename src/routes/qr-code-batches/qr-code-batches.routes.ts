import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../auth/access";
import { errorResponses, IdParam, jsonBody, jsonContent } from "../../lib/openapi";
import { listHeaders, listQuery } from "../../lib/sort-and-page";
import { BookIdParam, EnableInput } from "../qr-codes/qr-codes.schemas";
import { QrCodeBatch, qrCodeBatchSortFields, SheetQuery } from "./qr-code-batches.schemas";

const tags = ["Activation QR code"];
const bodyErrors = [
  "VALIDATION_FAILED",
  "INVALID_DEFINITION",
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
] as const;

const downloadHeaders = {
  "Content-Disposition": { description: "With a file name", schema: { type: "string" as const } },
};

export const listQrCodeBatchesOfBook = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/ofbook/{bookId}/batches",
  operationId: "listQrCodeBatchesOfBook",
  summary: "List a book's print runs (QR code batches) with their counts",
  description: "HAL rel `qrCodeBatches`.",
  tags,
  request: { params: BookIdParam, query: listQuery(qrCodeBatchSortFields) },
  responses: {
    200: { ...jsonContent(z.array(QrCodeBatch), "The book's batches"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const getQrCodeBatch = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/batch/{id}",
  operationId: "getQrCodeBatch",
  summary: "Get a print run (QR code batch) with its counts",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(QrCodeBatch, "The batch"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const setQrCodeBatchEnabled = defineRoute("admin", {
  method: "post",
  path: "/activation-qr-code/batch/{id}/en-disable",
  operationId: "setQrCodeBatchEnabled",
  summary: "Enable or disable every code of a print run at once",
  description:
    "One statement switches all the batch's codes; a disabled code cannot be redeemed (409 QR_CODE_DISABLED), activations already made stay.",
  tags,
  request: { params: IdParam, body: jsonBody(EnableInput) },
  responses: {
    200: jsonContent(QrCodeBatch, "The batch with its new counts"),
    ...errorResponses(...bodyErrors, "NOT_FOUND"),
  },
});

export const getQrCodeBatchCsv = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/batch/{id}/codes.csv",
  operationId: "getQrCodeBatchCsv",
  summary: "A print run's codes as CSV",
  description:
    "RFC 4180 CSV with a header row `code,id,status,activationCount,createdAt`, one code per line in id order. `status` is `available`, or why the code cannot be redeemed now, in the order redemption checks: `disabled`, `expired`, `exhausted`.",
  tags,
  request: { params: IdParam },
  responses: {
    200: {
      description: "The CSV",
      headers: downloadHeaders,
      content: {
        "text/csv": {
          schema: z.string().openapi({
            example:
              "code,id,status,activationCount,createdAt\r\n7KQ4-M2XD-9RTF-0BHA,1204,available,0,2026-11-21T10:04:05.123Z\r\n",
          }),
        },
      },
    },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const getQrCodeBatchSheet = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/batch/{id}/sheet.pdf",
  operationId: "getQrCodeBatchSheet",
  summary: "A printable PDF of a print run's codes",
  description:
    "One PDF, `columns` × `rows` codes per page in id order: each a vector QR symbol (content QR_PAYLOAD_TEMPLATE with `{code}` replaced, error correction M) inside its quiet zone of 4 modules, the code printed under it and the book's title under that; a footer names the book, the batch and the page. The document is written while it is sent, so a large batch starts at once and needs little memory.",
  tags,
  request: { params: IdParam, query: SheetQuery },
  responses: {
    200: {
      description: "The PDF",
      headers: downloadHeaders,
      content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
    },
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});
