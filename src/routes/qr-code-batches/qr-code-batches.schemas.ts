import { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../http/hal";
import { Timestamp } from "../../http/openapi";
import { PAPERS } from "../../print/sheet-layout";
import type { QrCodeBatchWithCounts } from "../../repositories/qr-code-batches";

export const QrCodeBatch = z
  .object({
    id: z.number().int().openapi({ example: 12 }),
    bookId: z.number().int().openapi({ example: 7 }),
    label: z.string().nullable().openapi({ example: "First print, 2026" }),
    maxActivations: z.number().int().openapi({ example: 1, description: "Of each code in the batch" }),
    expiresAt: Timestamp.nullable().openapi({ description: "When its codes stop working; null: never" }),
    codes: z.number().int().openapi({ example: 500, description: "Codes made in the batch" }),
    redeemed: z
      .number()
      .int()
      .openapi({ example: 120, description: "Codes at least one activation has been made from" }),
    unused: z
      .number()
      .int()
      .openapi({ example: 380, description: "Codes no activation has been made from (codes − redeemed)" }),
    disabled: z.number().int().openapi({ example: 0, description: "Codes that are switched off" }),
    createdAt: Timestamp,
  })
  .openapi("QrCodeBatch", {
    description: "A print run: codes made together by POST /activation-qr-code/batch.",
  });

export const SheetQuery = z.object({
  paper: z
    .enum(Object.keys(PAPERS) as [keyof typeof PAPERS, ...Array<keyof typeof PAPERS>])
    .default("A4")
    .openapi({
      param: { name: "paper", in: "query" },
      description: "Paper size (default A4)",
      example: "A4",
    }),
  columns: z.coerce
    .number()
    .int()
    .min(1)
    .max(20)
    .default(4)
    .openapi({
      param: { name: "columns", in: "query" },
      description: "Codes across a page (default 4)",
      example: 4,
    }),
  rows: z.coerce
    .number()
    .int()
    .min(1)
    .max(40)
    .default(6)
    .openapi({
      param: { name: "rows", in: "query" },
      description: "Codes down a page (default 6)",
      example: 6,
    }),
  symbolMm: z.coerce
    .number()
    .min(15)
    .max(250)
    .default(30)
    .openapi({
      param: { name: "symbolMm", in: "query" },
      description:
        "Side of each printed symbol including its quiet zone, in millimetres, at least 15 (default 30). The grid must fit the paper inside 10 mm margins, with room under each symbol for the code and the title; otherwise 400 VALIDATION_FAILED.",
      example: 30,
    }),
});

export function toQrCodeBatch(row: QrCodeBatchWithCounts): z.infer<typeof QrCodeBatch> {
  return {
    id: row.id,
    bookId: row.bookId,
    label: row.label,
    maxActivations: row.maxActivations,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    codes: row.codes,
    redeemed: row.redeemed,
    unused: row.unused,
    disabled: row.disabled,
    createdAt: row.createdAt.toISOString(),
  };
}

export const QrCodeBatchResource = halResource("QrCodeBatch", QrCodeBatch, {
  self: (batch) => `/activation-qr-code/batch/${batch.id}`,
  book: (batch) => `/book/${batch.bookId}`,
  enDisable: (batch) => `/activation-qr-code/batch/${batch.id}/en-disable`,
  codesCsv: (batch) => `/activation-qr-code/batch/${batch.id}/codes.csv`,
  sheet: (batch) => `/activation-qr-code/batch/${batch.id}/sheet.pdf`,
});

export const QrCodeBatchList = halList("qrCodeBatches", QrCodeBatchResource);
