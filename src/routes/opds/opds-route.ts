// An OPDS operation: the `user` level (HTTP Basic, which every reading app speaks), and instead of
// the API's problem+json a 401 that reading apps understand (README, Reading apps): a Basic
// challenge, the OPDS Authentication Document as the body and a Link to it.
import type { MiddlewareHandler } from "hono";
import { defineRoute, type RouteSpec } from "../../http/define-route";
import type { AppBindings } from "../../http/types";
import { OPDS_AUTHENTICATION, REL_AUTH_DOCUMENT } from "../../opds/catalog";
import { authenticationDocument } from "../../opds/opds2";
import { OpdsAuthenticationDocument } from "./opds.schemas";

export const BASIC_CHALLENGE = 'Basic realm="bookdist"';

export function authDocumentLink(publicUrl: string | undefined): string {
  return `<${publicUrl ?? ""}/opds/auth>; rel="${REL_AUTH_DOCUMENT}"; type="${OPDS_AUTHENTICATION}"`;
}

const challengeResponse = {
  description:
    "No or wrong credentials: a Basic challenge with the OPDS Authentication Document (what reading apps show as their sign-in)",
  headers: {
    "WWW-Authenticate": { description: '`Basic realm="bookdist"`', schema: { type: "string" as const } },
    Link: { description: "The authentication document", schema: { type: "string" as const } },
  },
  content: { [OPDS_AUTHENTICATION]: { schema: OpdsAuthenticationDocument } },
};

/** Headers of the problem response that the challenge does not keep. */
const REPLACED = new Set(["content-type", "content-length", "www-authenticate"]);

/**
 * Turns the access check's 401 (rendered by the error mapper as problem+json) into the challenge;
 * the answer's other headers (X-Request-Id, the security headers) stay.
 */
const challenge: MiddlewareHandler<AppBindings> = async (c, next) => {
  await next();
  if (c.res.status !== 401) return;
  const { publicUrl } = c.get("deps").config;
  const headers = new Headers();
  for (const [name, value] of c.res.headers) if (!REPLACED.has(name)) headers.set(name, value);
  headers.set("Content-Type", OPDS_AUTHENTICATION);
  headers.set("WWW-Authenticate", BASIC_CHALLENGE);
  headers.set("Link", authDocumentLink(publicUrl));
  headers.set("Cache-Control", "no-store");
  const body = c.req.method === "HEAD" ? null : JSON.stringify(authenticationDocument(publicUrl));
  // Unset first: Hono's setter would otherwise copy the old response's headers onto the new one.
  c.res = undefined;
  c.res = new Response(body, { status: 401, headers });
};

/** defineRoute at the `user` level, with the OPDS challenge as its 401. */
export function opdsRoute<const S extends RouteSpec>(spec: S) {
  const route = defineRoute("user", {
    ...spec,
    responses: { ...spec.responses, 401: challengeResponse },
  });
  route.middleware.unshift(challenge);
  return route;
}
