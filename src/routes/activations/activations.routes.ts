import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../auth/access";
import { countResponse, errorResponses, IdParam, jsonBody, jsonContent } from "../../lib/openapi";
import { listHeaders, listQuery } from "../../lib/sort-and-page";
import {
  Activation,
  ActivationInput,
  activationSortFields,
  RedeemInput,
  UserUuidParam,
} from "./activations.schemas";

const tags = ["Activation"];
const bodyErrors = [
  "VALIDATION_FAILED",
  "INVALID_DEFINITION",
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
] as const;
const location = { Location: { description: "URL of the activation", schema: { type: "string" as const } } };

export const listActivations = defineRoute("admin", {
  method: "get",
  path: "/activation",
  operationId: "listActivations",
  summary: "List all activations",
  description: "HAL rel `activations`.",
  tags,
  request: { query: listQuery(activationSortFields) },
  responses: {
    200: { ...jsonContent(z.array(Activation), "The activations"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED"),
  },
});

export const countActivations = defineRoute("admin", {
  method: "get",
  path: "/activation/count",
  operationId: "countActivations",
  summary: "Count activations",
  tags,
  responses: { ...countResponse },
});

export const listActivationsOfUser = defineRoute("owner", {
  method: "get",
  path: "/activation/ofuser/{userUUID}",
  operationId: "listActivationsOfUser",
  summary: "List a user's activations",
  description: "HAL rel `activations`.",
  tags,
  request: { params: UserUuidParam, query: listQuery(activationSortFields) },
  responses: {
    200: { ...jsonContent(z.array(Activation), "The user's activations"), headers: listHeaders },
    ...errorResponses("VALIDATION_FAILED"),
  },
});

export const countActivationsOfUser = defineRoute("owner", {
  method: "get",
  path: "/activation/ofuser/{userUUID}/count",
  operationId: "countActivationsOfUser",
  summary: "Count a user's activations",
  tags,
  request: { params: UserUuidParam },
  responses: { ...countResponse, ...errorResponses("VALIDATION_FAILED") },
});

export const getActivation = defineRoute("owner", {
  method: "get",
  path: "/activation/{id}",
  operationId: "getActivation",
  summary: "Get an activation",
  description: "For the user who holds it, or an admin.",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(Activation, "The activation"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});

export const createActivation = defineRoute("admin", {
  method: "post",
  path: "/activation",
  operationId: "createActivation",
  summary: "Give a user a book",
  tags,
  request: { body: jsonBody(ActivationInput) },
  responses: {
    201: { ...jsonContent(Activation, "The new activation"), headers: location },
    ...errorResponses(...bodyErrors, "CONFLICT"),
  },
});

export const redeemQrCode = defineRoute("user", {
  method: "post",
  path: "/activation/by-qr-code",
  operationId: "redeemActivationQrCode",
  summary: "Redeem an activation code",
  description:
    "201 with the new activation. A user who already holds the book gets 200 with the existing activation and the code is not consumed. Concurrent redemptions never exceed the code's maxActivations. A code past its expiresAt → 409 QR_CODE_EXPIRED. Failed attempts (unknown, disabled, expired, used-up codes) are counted per user and per client address; over the limit → 429 with Retry-After.",
  tags,
  request: { body: jsonBody(RedeemInput) },
  responses: {
    200: jsonContent(Activation, "The user already held the book: the existing activation"),
    201: { ...jsonContent(Activation, "The new activation"), headers: location },
    ...errorResponses(
      ...bodyErrors,
      "FORBIDDEN",
      "NOT_FOUND",
      "QR_CODE_DISABLED",
      "QR_CODE_EXHAUSTED",
      "QR_CODE_EXPIRED",
      "TOO_MANY_REQUESTS",
    ),
  },
});

export const updateActivation = defineRoute("admin", {
  method: "put",
  path: "/activation/{id}",
  operationId: "updateActivation",
  summary: "Replace an activation's book and user",
  tags,
  request: { params: IdParam, body: jsonBody(ActivationInput) },
  responses: {
    200: jsonContent(Activation, "The updated activation"),
    ...errorResponses(...bodyErrors, "NOT_FOUND", "CONFLICT"),
  },
});

export const deleteActivation = defineRoute("admin", {
  method: "delete",
  path: "/activation/{id}",
  operationId: "deleteActivation",
  summary: "Delete an activation",
  description: "The entitlement ends; if it came from a QR code, the code gets the slot back.",
  tags,
  request: { params: IdParam },
  responses: {
    200: jsonContent(Activation, "The deleted activation"),
    ...errorResponses("VALIDATION_FAILED", "NOT_FOUND"),
  },
});
