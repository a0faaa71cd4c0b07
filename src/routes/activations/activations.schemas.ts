import { z } from "@hono/zod-openapi";
import { halList, halResource } from "../../http/hal";
import { Id, requestDateTime, timestamps, timestampsOf, trimmed } from "../../http/openapi";
import type { ActivationRow } from "../../repositories/activations";
import { type ActivationFilter, activationSources } from "../../services/activations";

/** A path's user: only the canonical lower-case form, so one user has one URL. */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const UserUuidParam = z.object({
  userUUID: z
    .string()
    .regex(CANONICAL_UUID, "must be a canonical lower-case UUID")
    .openapi({
      param: { name: "userUUID", in: "path" },
      description: "The user's uuid, canonical lower-case form",
      example: "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91",
    }),
});

/** A uuid in a body: any case is accepted and stored lower-case, as users' uuids are. */
const BodyUuid = z
  .uuid()
  .transform((uuid) => uuid.toLowerCase())
  .openapi({ type: "string", format: "uuid", example: "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91" });

export const Activation = z
  .object({
    id: z.number().int().openapi({ example: 31 }),
    bookId: z.number().int().openapi({ example: 7 }),
    userUuid: z.string().openapi({ example: "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91" }),
    qrCodeId: z
      .number()
      .int()
      .nullable()
      .openapi({ example: 1204, description: "The QR code it was made from; null if made by an admin" }),
    shopOrderId: z.number().int().nullable().openapi({
      example: 727,
      description: "The WooCommerce order that granted it (API.md §7); null unless granted by a shop order",
    }),
    ...timestamps,
  })
  .openapi("Activation");

export const ActivationInput = z
  .object({
    bookId: Id.openapi({ description: "The book; must exist" }),
    userUuid: BodyUuid.openapi({ description: "The user who gets the book; must exist in the store" }),
  })
  .openapi("ActivationInput", { description: "(userUuid, bookId) is unique." });

export const RedeemInput = z
  .object({
    code: trimmed(64, 1).openapi({
      example: "7KQ4-M2XD-9RTF-0BHA",
      description: "As printed or scanned: case, dashes and spaces do not matter; O reads as 0, I and L as 1",
    }),
    userUuid: BodyUuid.optional().openapi({
      description:
        "Admins only: the user who gets the book, who must exist in the store (default: the caller)",
    }),
  })
  .openapi("RedeemInput");

export function toActivation(row: ActivationRow): z.infer<typeof Activation> {
  return {
    id: row.id,
    bookId: row.bookId,
    userUuid: row.userUuid,
    qrCodeId: row.qrCodeId,
    shopOrderId: row.shopOrderId,
    ...timestampsOf(row),
  };
}

export const ActivationResource = halResource("Activation", Activation, {
  self: (activation) => `/activation/${activation.id}`,
  book: (activation) => `/book/${activation.bookId}`,
  userActivations: (activation) => `/activation/ofuser/${activation.userUuid}`,
  qrCode: {
    optional: (activation) =>
      activation.qrCodeId === null ? null : `/activation-qr-code/${activation.qrCodeId}`,
  },
});

export const ActivationList = halList("activations", ActivationResource);

/** The filters of GET /activation and its count, as README "Finding users and activations" describes them; every given one must hold. */
export const activationFilters = {
  bookId: Id.optional().openapi({
    param: { name: "bookId", in: "query" },
    description: "Only this book's activations",
    example: 7,
  }),
  userUuid: z
    .string()
    .regex(CANONICAL_UUID, "must be a canonical lower-case UUID")
    .optional()
    .openapi({
      param: { name: "userUuid", in: "query" },
      description: "Only this user's activations (canonical lower-case uuid)",
      example: "3f0d6a1e-2b7c-4c8e-9a51-0d2f6b7e8c91",
    }),
  source: z
    .enum(activationSources)
    .optional()
    .openapi({
      param: { name: "source", in: "query" },
      description:
        "Where it came from: `code` (a QR code was redeemed on it, qrCodeId set), `order` (a shop order alone granted it, shopOrderId set and qrCodeId null), `manual` (an admin gave it, both null)",
      example: "code",
    }),
  from: requestDateTime()
    .optional()
    .openapi({
      param: { name: "from", in: "query" },
      description: "Created at or after this instant (RFC 3339)",
      example: "2026-11-01T00:00:00Z",
    }),
  to: requestDateTime()
    .optional()
    .openapi({
      param: { name: "to", in: "query" },
      description: "Created at or before this instant (RFC 3339)",
      example: "2026-11-30T23:59:59Z",
    }),
};

export const ActivationFilterQuery = z.object(activationFilters);

/** The service's filter from the validated query. */
export function activationFilterOf(query: z.infer<typeof ActivationFilterQuery>): ActivationFilter {
  return {
    bookId: query.bookId,
    userUuid: query.userUuid,
    source: query.source,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}
