import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/entitlements";
import type * as routes from "./entitlements.routes";

/** How long a cache may keep the JWKS: a rotated key is published ENTITLEMENT_KEY_OVERLAP before it signs. */
const JWKS_MAX_AGE_S = 300;

export const getEntitlements: AppRouteHandler<typeof routes.getEntitlements> = async (c) => {
  const deps = c.get("deps");
  const answer = await service.issueEntitlements(deps, c.get("principal"));
  return c.json(answer, 200, { "Cache-Control": "no-store" });
};

export const getEntitlementRevocations: AppRouteHandler<typeof routes.getEntitlementRevocations> = async (
  c,
) => {
  const since = new Date(c.req.valid("query").since);
  const rows = await service.revocationsSince(c.get("deps"), c.get("principal"), since);
  return c.json(rows, 200);
};

export const getEntitlementJwks: AppRouteHandler<typeof routes.getEntitlementJwks> = async (c) => {
  const { keys, etag } = await service.publishedKeys(c.get("deps"));
  const headers = { "Cache-Control": `public, max-age=${JWKS_MAX_AGE_S}`, ETag: etag };
  const wanted = c.req.header("If-None-Match");
  if (wanted?.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag)) {
    return c.body(null, 304, headers);
  }
  return c.json({ keys }, 200, headers);
};
