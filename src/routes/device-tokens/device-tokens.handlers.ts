import { auditSourceOf } from "../../http/audit-source";
import { clientAddressOf } from "../../http/client-address";
import type { AppRouteHandler } from "../../http/types";
import { AppError } from "../../lib/problems";
import * as service from "../../services/device-tokens";
import type * as routes from "./device-tokens.routes";
import { toDeviceToken } from "./device-tokens.schemas";

export const createDeviceToken: AppRouteHandler<typeof routes.createDeviceToken> = async (c) => {
  const deps = c.get("deps");
  const input = c.req.valid("json");
  if (input.expiresAt !== undefined && Date.parse(input.expiresAt) <= deps.clock.now().getTime()) {
    throw new AppError("VALIDATION_FAILED", "Invalid body: expiresAt: must lie in the future", {
      errors: [{ path: "expiresAt", message: "must lie in the future" }],
    });
  }
  const { row, token } = await service.createDeviceToken(
    deps,
    c.get("runtime"),
    c.get("principal"),
    input,
    clientAddressOf(c),
  );
  return c.json({ ...toDeviceToken(row), token }, 201, { "Cache-Control": "no-store" });
};

export const listDeviceTokens: AppRouteHandler<typeof routes.listDeviceTokens> = async (c) => {
  const rows = await service.listDeviceTokens(c.get("deps"), c.get("principal"));
  return c.json(rows.map(toDeviceToken), 200, { "X-Total-Count": String(rows.length) });
};

export const revokeDeviceToken: AppRouteHandler<typeof routes.revokeDeviceToken> = async (c) => {
  const row = await service.revokeDeviceToken(
    c.get("deps"),
    c.get("principal"),
    auditSourceOf(c),
    c.req.valid("param").id,
  );
  return c.json(toDeviceToken(row), 200);
};
