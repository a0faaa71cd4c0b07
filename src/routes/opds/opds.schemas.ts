import { z } from "@hono/zod-openapi";
import { Id } from "../../http/openapi";
import { MAX_SEARCH_LENGTH } from "../../services/catalog";
import { UserUuidParam } from "../activations/activations.schemas";

/** Deep enough for any reader's shelf; a page past the end is simply empty. */
const MAX_PAGE = 100_000;

const DECIMAL = /^(0|[1-9][0-9]{0,9})$/;

/** `page`, from 0 like every list of the API (OPDS 2's `currentPage` is this plus one). */
const Page = z
  .preprocess(
    (value) => (typeof value === "string" && DECIMAL.test(value) ? Number(value) : value),
    z.number({ error: "Expected a page number from 0" }).int().min(0).max(MAX_PAGE),
  )
  .optional()
  .openapi({
    param: { name: "page", in: "query" },
    type: "integer",
    minimum: 0,
    maximum: MAX_PAGE,
    description: "The page, from 0; 50 entries each",
    example: 0,
  });

export const FeedQuery = z.object({ page: Page });

export const SearchQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1)
    .max(MAX_SEARCH_LENGTH)
    .openapi({
      param: { name: "q", in: "query" },
      description: "Words of a title or author (substring, case-insensitive)",
      example: "Gärten",
    }),
  page: Page,
});

export const SignedFileParams = UserUuidParam.extend({
  id: Id.openapi({ param: { name: "id", in: "path" }, description: "Record id" }),
});

const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

export const SignedFileQuery = z.object({
  exp: z
    .preprocess(
      (value) => (typeof value === "string" && DECIMAL.test(value) ? Number(value) : value),
      z.number({ error: "Expected a unix time" }).int().min(0),
    )
    .openapi({
      param: { name: "exp", in: "query" },
      type: "integer",
      description: "When the link expires (unix seconds)",
      example: 1_795_000_000,
    }),
  sig: z
    .string()
    .regex(SIGNATURE, "must be the link's signature")
    .openapi({
      param: { name: "sig", in: "query" },
      description: "The link's signature (base64url HMAC-SHA256)",
      example: "q0bH1pY1dM4o8mJ2kFQy8e2C0r0oYkO1s5rZ5m2r3Qk",
    }),
});

/**
 * The OPDS 2.0 documents are declared by their published JSON Schemas rather than restated here:
 * a reader validates against those, and the tests do too (README, Tests).
 */
export const Opds2Feed = z.record(z.string(), z.unknown()).openapi("Opds2Feed", {
  description: "An OPDS 2.0 feed, valid against https://drafts.opds.io/schema/feed.schema.json",
});

export const OpdsAuthenticationDocument = z
  .record(z.string(), z.unknown())
  .openapi("OpdsAuthenticationDocument", {
    description:
      "The OPDS Authentication Document (type `http://opds-spec.org/auth/basic`), valid against https://drafts.opds.io/schema/authentication.schema.json",
  });
