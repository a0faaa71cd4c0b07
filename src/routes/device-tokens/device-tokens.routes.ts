import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../http/define-route";
import { IdParam, jsonBody, jsonContent } from "../../http/openapi";
import * as schemas from "./device-tokens.schemas";

const tags = ["Authentication"];

const noStore = {
  "Cache-Control": {
    description: "`no-store`: the answer carries a token",
    schema: { type: "string" as const },
  },
};

export const createDeviceToken = defineRoute("user", {
  method: "post",
  path: "/authentication/device-token",
  operationId: "createDeviceToken",
  summary: "Make a device token (an app password) for a reading app",
  description:
    "Only with a session's Bearer token (HTTP Basic and device tokens are refused with 401), and " +
    "with the account's password again: a wrong one is 401 `AUTHENTICATION_FAILED`, throttled as " +
    "login is. The token is in this answer only; a user holds at most 50 (the 51st is 409).",
  tags,
  request: { body: jsonBody(schemas.DeviceTokenInput) },
  errors: ["CONFLICT", "TOO_MANY_REQUESTS"],
  responses: {
    201: { ...jsonContent(schemas.CreatedDeviceToken, "The token, shown this once"), headers: noStore },
  },
});

export const listDeviceTokens = defineRoute("user", {
  method: "get",
  path: "/authentication/device-token",
  operationId: "listDeviceTokens",
  summary: "The caller's device tokens",
  description: "The live tokens (not revoked, not expired), oldest first; never a token itself.",
  tags,
  responses: {
    200: {
      ...jsonContent(z.array(schemas.DeviceToken), "The caller's device tokens"),
      headers: {
        "X-Total-Count": { description: "Number of tokens listed", schema: { type: "integer" as const } },
      },
    },
  },
});

export const revokeDeviceToken = defineRoute("owner", {
  method: "delete",
  path: "/authentication/device-token/{id}",
  operationId: "revokeDeviceToken",
  summary: "Revoke a device token",
  description:
    "It stops working at once. 404 when there is no such token or it is already revoked; 403 for " +
    "another user's token.",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: jsonContent(schemas.DeviceToken, "The revoked token") },
});
