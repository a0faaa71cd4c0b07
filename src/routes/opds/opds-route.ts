// An OPDS operation: the `user` level with the `opds` device-token scope (HTTP Basic, which every
// reading app speaks, with a device token as the password), and instead of
// the API's problem+json a 401 that reading apps understand (README, Reading apps): a Basic
// challenge, the OPDS Authentication Document as the body and a Link to it.
import type { MiddlewareHandler } from "hono";
import { defineRoute, type RouteSpec } from "../../http/define-route";
import { errorResponses } from "../../http/openapi";
import type { AppBindings } from "../../http/types";
import { OPDS_AUTHENTICATION, REL_AUTH_DOCUMENT } from "../../opds/catalog";
import { authenticationDocument } from "../../opds/opds2";
import { OpdsAuthenticationDocument } from "./opds.schemas";

export const BASIC_CHALLENGE = 'Basic realm="bookdist"';

export function authDocumentLink(publicUrl: string | undefined): string {
  return `<${publicUrl ?? ""}/opds/auth>; rel="${REL_AUTH_DOCUMENT}"; type="${OPDS_AUTHENTICATION}"`;
}

const PROBLEM = "application/problem+json";
const problem401 = errorResponses("UNAUTHORIZED", "AUTHENTICATION_FAILED")[401];

const challengeResponse = {
  description: `No or wrong credentials: a Basic challenge with the OPDS Authentication Document (what reading apps show as their sign-in); the problem (${problem401.description}) instead for a client whose Accept asks for ${PROBLEM}`,
  headers: {
    ...problem401.headers,
    "WWW-Authenticate": { description: '`Basic realm="bookdist"`', schema: { type: "string" as const } },
    Link: { description: "The authentication document", schema: { type: "string" as const } },
  },
  content: {
    [OPDS_AUTHENTICATION]: { schema: OpdsAuthenticationDocument },
    ...problem401.content,
  },
};

/** A client that names problem+json in Accept (the API's own clients) keeps the problem body. */
const wantsProblem = (accept: string | undefined) => (accept ?? "").toLowerCase().includes(PROBLEM);

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
  headers.set("WWW-Authenticate", BASIC_CHALLENGE);
  headers.set("Link", authDocumentLink(publicUrl));
  headers.set("Cache-Control", "no-store");
  if (wantsProblem(c.req.header("accept"))) {
    headers.set("Content-Type", c.res.headers.get("content-type") ?? PROBLEM);
    const problem = c.res.body;
    c.res = undefined;
    c.res = new Response(problem, { status: 401, headers });
    return;
  }
  headers.set("Content-Type", OPDS_AUTHENTICATION);
  const body = c.req.method === "HEAD" ? null : JSON.stringify(authenticationDocument(publicUrl));
  // Unset first: Hono's setter would otherwise copy the old response's headers onto the new one.
  c.res = undefined;
  c.res = new Response(body, { status: 401, headers });
};

/**
 * defineRoute at the `user` level with the `opds` device-token scope (a reading app signs in with a
 * device token, README "Reading apps"), and the OPDS challenge as its 401.
 */
export function opdsRoute<const S extends RouteSpec>(spec: S) {
  const route = defineRoute("user", {
    ...spec,
    scope: "opds",
    responses: { ...spec.responses, 401: challengeResponse },
  });
  route.middleware.unshift(challenge);
  return route;
}
