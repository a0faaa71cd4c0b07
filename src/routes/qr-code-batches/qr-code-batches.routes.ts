import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../http/define-route";
import { IdParam, jsonBody } from "../../http/openapi";
import { resourceContent } from "../../http/respond";
import { listRoute } from "../../http/route-shapes";
import { qrCodeBatchSortFields } from "../../repositories/qr-code-batches";
import { BookIdParam, EnableInput } from "../qr-codes/qr-codes.schemas";
import { QrCodeBatchList, QrCodeBatchResource, SheetQuery } from "./qr-code-batches.schemas";

const tags = ["Activation QR code"];

/** A print run's file is saved, named after the book and the batch (RFC 6266). */
const downloadHeaders = (extension: "csv" | "pdf") => ({
  "Content-Disposition": {
    description: `\`attachment\`, named \`<book title> - <label>.${extension}\` (\`batch <id>\` for a batch without a label): an ASCII \`filename\` and, for the exact name, \`filename*=UTF-8''…\` (RFC 6266)`,
    schema: { type: "string" as const },
  },
  "Cache-Control": {
    description: "`private, no-store`: the codes are not kept by caches",
    schema: { type: "string" as const },
  },
});

export const listQrCodeBatchesOfBook = listRoute("admin", {
  path: "/activation-qr-code/ofbook/{bookId}/batches",
  operationId: "listQrCodeBatchesOfBook",
  summary: "List a book's print runs (QR code batches) with their counts",
  tags,
  params: BookIdParam,
  errors: ["NOT_FOUND"],
  list: QrCodeBatchList,
  sortFields: qrCodeBatchSortFields,
  returns: "The book's batches",
});

export const getQrCodeBatch = defineRoute("admin", {
  method: "get",
  path: "/activation-qr-code/batch/{id}",
  operationId: "getQrCodeBatch",
  summary: "Get a print run (QR code batch) with its counts",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(QrCodeBatchResource, "The batch") },
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
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(QrCodeBatchResource, "The batch with its new counts") },
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
  errors: ["NOT_FOUND"],
  responses: {
    200: {
      description: "The CSV",
      headers: downloadHeaders("csv"),
      content: {
        "text/csv": {
          schema: z.string().openapi({
            example:
              "code,id,status,activationCount,createdAt\r\n7KQ4-M2XD-9RTF-0BHA,1204,available,0,2026-11-21T10:04:05.123Z\r\n",
          }),
        },
      },
    },
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
  errors: ["NOT_FOUND"],
  responses: {
    200: {
      description: "The PDF",
      headers: downloadHeaders("pdf"),
      content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
    },
  },
});
