import { z } from "@hono/zod-openapi";
import { requestDateTime, Timestamp } from "../../http/openapi";

export const Entitlements = z
  .object({
    token: z.string().openapi({
      example:
        "eyJhbGciOiJFZERTQSIsInR5cCI6ImJvb2tkaXN0LWVudGl0bGVtZW50cytqd3QiLCJraWQiOiJrUHJLX3FteFZXYVlWQTl3d0JGNkl1bzN2Vnp6N1R4SENUd1hCeWdyUzRrIn0.eyJzdWIiOiIuLi4ifQ.c2ln",
      description:
        'Compact JWS, Ed25519 (`alg: "EdDSA"`, `typ: "bookdist-entitlements+jwt"`, `kid` the RFC 7638 thumbprint of its key in `/.well-known/jwks.json`). Claims: `iss`, `sub` (userUuid), `iat`, `nbf`, `exp` (iat + ENTITLEMENT_TTL) and `books: [{ id, activationId, since, newestVersion: null | { id, versionCode, sha256 } }]`, every book the caller holds.',
    }),
    expiresAt: Timestamp,
  })
  .openapi("Entitlements");

export const EntitlementJwk = z
  .object({
    kty: z.literal("OKP").openapi({ example: "OKP" }),
    crv: z.literal("Ed25519").openapi({ example: "Ed25519" }),
    x: z.string().openapi({
      description: "The public key, base64url (RFC 8037)",
      example: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
    }),
    alg: z.literal("EdDSA").openapi({ example: "EdDSA" }),
    use: z.literal("sig").openapi({ example: "sig" }),
    kid: z.string().openapi({
      description: "RFC 7638 thumbprint of the key",
      example: "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k",
    }),
  })
  .openapi("EntitlementJwk");

export const EntitlementJwks = z.object({ keys: z.array(EntitlementJwk) }).openapi("EntitlementJwks", {
  description:
    "The keys that verify entitlement tokens: the one signing now, a rotated one published before it signs, and retired ones until every token they signed has expired.",
});

export const Revocation = z
  .object({
    bookId: z.number().int().openapi({ example: 7 }),
    activationId: z.number().int().openapi({ example: 31 }),
    endedAt: Timestamp,
  })
  .openapi("EntitlementRevocation");

export const RevocationsQuery = z.object({
  since: requestDateTime().openapi({
    param: { name: "since", in: "query", required: true },
    description: "RFC 3339 date-time: the activations that ended at or after it",
    example: "2026-11-21T10:04:05.123Z",
  }),
});
