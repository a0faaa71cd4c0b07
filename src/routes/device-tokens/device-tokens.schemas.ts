import { z } from "@hono/zod-openapi";
import { DEVICE_TOKEN_SCOPES } from "../../auth/device-token-format";
import { Id, requestDateTime, singleLine, Timestamp, trimmed } from "../../http/openapi";
import type { DeviceTokenRow } from "../../repositories/device-tokens";
import { scopesOf } from "../../services/device-tokens";

const Scope = z.enum(DEVICE_TOKEN_SCOPES).openapi({
  description:
    "`opds`: the OPDS catalogs; `sync`: the reading-progress sync; `entitlements`: the offline entitlements",
});

export const DeviceToken = z
  .object({
    id: Id,
    name: z.string().openapi({ example: "KOReader on the Kobo" }),
    prefix: z.string().openapi({ description: "The token's first 8 characters", example: "bdt_7Kq4" }),
    scopes: z.array(Scope).openapi({ example: ["opds", "sync", "entitlements"] }),
    createdAt: Timestamp,
    lastUsedAt: Timestamp.nullable().openapi({
      description: "Recorded at most once a minute; null: never used",
    }),
    expiresAt: Timestamp.nullable().openapi({ description: "null: never" }),
  })
  .openapi("DeviceToken");

export const CreatedDeviceToken = DeviceToken.extend({
  token: z.string().openapi({
    description: "The app password itself: shown this once, never again (only its digests are kept)",
    example: "bdt_7Kq4M2xD9rTf0BhA3nPq8sWvYz1cLe0aB3dE",
  }),
}).openapi("CreatedDeviceToken");

export const DeviceTokenInput = z
  .object({
    name: trimmed(100, 1).openapi({
      description: "To tell the token apart",
      example: "KOReader on the Kobo",
    }),
    password: singleLine()
      .min(1)
      .max(4096)
      .openapi({ description: "The account's password, again", example: "correct horse battery staple" }),
    scopes: z
      .array(Scope)
      .min(1)
      .refine((scopes) => new Set(scopes).size === scopes.length, "must not repeat a scope")
      .optional()
      .openapi({ description: "Default: all three", example: ["opds", "sync"] }),
    expiresAt: requestDateTime()
      .optional()
      .openapi({ description: "In the future; default: never", example: "2027-12-31T23:59:59.000Z" }),
  })
  .openapi("DeviceTokenInput");

export function toDeviceToken(row: DeviceTokenRow): z.infer<typeof DeviceToken> {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: scopesOf(row),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}
