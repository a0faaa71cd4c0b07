import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../http/define-route";
import { jsonContent } from "../../http/openapi";
import * as schemas from "./entitlements.schemas";

const tags = ["Authentication"];

const noStore = {
  "Cache-Control": {
    description: "`no-store`: the answer carries a token",
    schema: { type: "string" as const },
  },
};

export const getEntitlements = defineRoute("user", {
  method: "get",
  path: "/authentication/entitlements",
  operationId: "getEntitlements",
  summary: "An offline entitlements token: every book the caller holds, signed",
  description:
    "An app verifies it offline with the keys of `/.well-known/jwks.json`; a revoked book is absent from the next token.",
  tags,
  scope: "entitlements",
  responses: {
    200: { ...jsonContent(schemas.Entitlements, "The signed entitlements"), headers: noStore },
  },
});

export const getEntitlementRevocations = defineRoute("user", {
  method: "get",
  path: "/authentication/entitlements/revocations",
  operationId: "getEntitlementRevocations",
  summary: "The caller's activations ended since a time",
  description:
    "Oldest first, at most 1000 (ask again with `since` = the last `endedAt`): an online app drops these books before its token expires. Kept for ENTITLEMENT_TTL.",
  tags,
  scope: "entitlements",
  request: { query: schemas.RevocationsQuery },
  responses: {
    200: jsonContent(z.array(schemas.Revocation), "The caller's ended activations"),
  },
});

const jwksHeaders = {
  "Cache-Control": { description: "`public, max-age=300`", schema: { type: "string" as const } },
  ETag: { description: "The key set's tag", schema: { type: "string" as const } },
};

export const getEntitlementJwks = defineRoute("public", {
  method: "get",
  path: "/.well-known/jwks.json",
  operationId: "getEntitlementJwks",
  summary: "The public keys that verify entitlement tokens (JWKS)",
  tags,
  responses: {
    200: { ...jsonContent(schemas.EntitlementJwks, "The keys"), headers: jwksHeaders },
    // A 304 repeats the validator and the caching rule (RFC 9110 §15.4.5), as the handler sends them.
    304: { description: "The key set is the one of `If-None-Match`", headers: jwksHeaders },
  },
});
