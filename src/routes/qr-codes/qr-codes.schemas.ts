import { z } from "@hono/zod-openapi";
import { RangeHeaders } from "../../http/download-docs";
import { halList, halResource } from "../../http/hal";
import {
  Id,
  optionalText,
  requestDateTime,
  singleLine,
  Timestamp,
  timestamps,
  timestampsOf,
} from "../../http/openapi";
import type { QrCodeRow } from "../../repositories/qr-codes";

export const BookIdParam = z.object({
  bookId: Id.openapi({ param: { name: "bookId", in: "path" }, description: "The book's id" }),
});

export const ActivationQrCode = z
  .object({
    id: z.number().int().openapi({ example: 1204 }),
    bookId: z.number().int().openapi({ example: 7 }),
    batchId: z
      .number()
      .int()
      .nullable()
      .openapi({ example: null, description: "The print run it was made in" }),
    code: z.string().openapi({ example: "7KQ4-M2XD-9RTF-0BHA" }),
    enabled: z.boolean().openapi({ example: true }),
    maxActivations: z.number().int().openapi({ example: 1 }),
    activationCount: z
      .number()
      .int()
      .openapi({ example: 0, description: "Activations made from it; equal to maxActivations when used up" }),
    label: z.string().nullable().openapi({ example: "First print, 2026" }),
    expiresAt: Timestamp.nullable().openapi({ description: "null: never" }),
    ...timestamps,
  })
  .openapi("ActivationQrCode");

const MaxActivations = z
  .number()
  .int()
  .min(1)
  .max(1_000_000)
  .default(1)
  .openapi({ example: 1, description: "How many users may redeem it (default 1)" });

export const QrCodeInput = z
  .object({
    bookId: Id.openapi({ description: "The book; must exist" }),
    maxActivations: MaxActivations,
    label: optionalText(200).openapi({ example: "Review copy" }),
    enabled: z.boolean().default(true).openapi({ example: true, description: "Default true" }),
  })
  .openapi("QrCodeInput");

export const QrCodeBatchInput = z
  .object({
    bookId: Id.openapi({ description: "The book; must exist" }),
    quantity: z.number().int().min(1).max(10_000).openapi({ example: 500 }),
    maxActivations: MaxActivations,
    label: optionalText(200).openapi({ example: "First print, 2026" }),
    expiresAt: requestDateTime()
      .nullish()
      .transform((value) => (value ? new Date(value) : null))
      .openapi({ type: ["string", "null"], format: "date-time", example: "2027-12-31T23:59:59.000Z" }),
  })
  .openapi("QrCodeBatchInput");

export const EnableInput = z
  .object({ enabled: z.boolean().openapi({ example: false }) })
  .openapi("EnableInput");

export const NullActivations = z
  .object({
    bookId: z.number().int().openapi({ example: 7 }),
    count: z.number().int().openapi({ example: 2 }),
    qrCodes: z.array(ActivationQrCode),
  })
  .openapi("NullActivations", { description: "The book's codes that no activation was ever made from." });

export const QrImageQuery = z.object({
  size: z.coerce
    .number()
    .int()
    .min(64)
    .max(2048)
    .default(512)
    .openapi({
      param: { name: "size", in: "query" },
      description: "Width of the PNG in pixels",
      example: 512,
    }),
});

export function toQrCode(row: QrCodeRow): z.infer<typeof ActivationQrCode> {
  return {
    id: row.id,
    bookId: row.bookId,
    batchId: row.batchId,
    code: row.code,
    enabled: row.enabled,
    maxActivations: row.maxActivations,
    activationCount: row.activationCount,
    label: row.label,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    ...timestampsOf(row),
  };
}

export const QrCodeResource = halResource("ActivationQrCode", ActivationQrCode, {
  self: (qrCode) => `/activation-qr-code/${qrCode.id}`,
  book: (qrCode) => `/book/${qrCode.bookId}`,
  qr: (qrCode) => `/activation-qr-code/${qrCode.id}/qr`,
  qrSvg: (qrCode) => `/activation-qr-code/${qrCode.id}/qr.svg`,
  enDisable: (qrCode) => `/activation-qr-code/${qrCode.id}/en-disable`,
});

export const QrCodeList = halList("activationQrCodes", QrCodeResource);

// Under HAL the nested codes are resource objects too, each with its own _links.
export const NullActivationsResource = halResource(
  "NullActivations",
  NullActivations,
  {
    self: (unused) => `/activation-qr-code/ofbook/${unused.bookId}/null-activations`,
    book: (unused) => `/book/${unused.bookId}`,
  },
  { qrCodes: QrCodeResource },
);

/** The image routes answer 304 while the client's ETag still matches. */
export const IfNoneMatchHeader = RangeHeaders.pick({ "if-none-match": true });

/** GET /activation-qr-code's look-up of one code by its text (listActivationQrCodes), and its count's. */
export const qrCodeFilters = {
  code: singleLine()
    .min(1)
    .max(64)
    .optional()
    .openapi({
      param: { name: "code", in: "query" },
      description:
        "A code as printed, typed or scanned, normalised as redemption does (case, dashes and spaces ignored, O read as 0, I and L as 1): the list is then that one code, or empty",
      example: "7kq4 m2xd 9rtf obha",
    }),
};

export const QrCodeFilterQuery = z.object(qrCodeFilters);
