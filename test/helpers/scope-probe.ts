// Operations with a device-token scope, for tests only: until the reading apps' own operations
// (OPDS, progress sync, entitlements) exist, these are what the access test and the device-token
// tests reach with a token. Mounted by createTestApp({ scopeProbe: true }) and nowhere else.
import { z } from "@hono/zod-openapi";
import { DEVICE_TOKEN_SCOPES, type DeviceTokenScope } from "../../src/auth/device-token-format";
import { createResourceRouter } from "../../src/http/create-router";
import { defineRoute } from "../../src/http/define-route";
import { jsonContent } from "../../src/http/openapi";
import type { AppRouteHandler } from "../../src/http/types";

export const ScopeProbeAnswer = z.object({
  userUuid: z.string(),
  email: z.string(),
  roles: z.array(z.string()),
  deviceTokenId: z.number().nullable(),
});

/** The path of the probe operation of `scope`. */
export const scopeProbePath = (scope: DeviceTokenScope) => `/test-scope-probe/${scope}`;

function probe(scope: DeviceTokenScope) {
  return defineRoute("user", {
    scope,
    method: "get",
    path: scopeProbePath(scope),
    operationId: `probeScope_${scope}`,
    summary: `Test only: an operation of the ${scope} scope`,
    tags: ["Test"],
    responses: { 200: jsonContent(ScopeProbeAnswer, "Who called") },
  });
}

const routes = Object.fromEntries(DEVICE_TOKEN_SCOPES.map((scope) => [scope, probe(scope)])) as Record<
  DeviceTokenScope,
  ReturnType<typeof probe>
>;

const answer: AppRouteHandler<ReturnType<typeof probe>> = (c) => {
  const principal = c.get("principal");
  return c.json(
    {
      userUuid: principal.userUuid,
      email: principal.email,
      roles: principal.roles,
      deviceTokenId: principal.deviceTokenId ?? null,
    },
    200,
  );
};

export function scopeProbeRouter() {
  return createResourceRouter(routes, { opds: answer, sync: answer, entitlements: answer });
}
