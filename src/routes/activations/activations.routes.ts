import { defineRoute } from "../../lib/define-route";
import { IdParam, jsonBody } from "../../lib/openapi";
import { resourceContent } from "../../lib/respond";
import { countRoute, getRoute, listRoute } from "../../lib/route-shapes";
import { activationSortFields } from "../../repositories/activations";
import {
  ActivationInput,
  ActivationList,
  ActivationResource,
  RedeemInput,
  UserUuidParam,
} from "./activations.schemas";

const tags = ["Activation"];
const location = { Location: { description: "URL of the activation", schema: { type: "string" as const } } };

export const listActivations = listRoute("admin", {
  path: "/activation",
  operationId: "listActivations",
  summary: "List all activations",
  tags,
  list: ActivationList,
  sortFields: activationSortFields,
  returns: "The activations",
});

export const countActivations = countRoute("admin", {
  path: "/activation/count",
  operationId: "countActivations",
  summary: "Count activations",
  tags,
});

export const listActivationsOfUser = listRoute("owner", {
  path: "/activation/ofuser/{userUUID}",
  operationId: "listActivationsOfUser",
  summary: "List a user's activations",
  tags,
  params: UserUuidParam,
  list: ActivationList,
  sortFields: activationSortFields,
  returns: "The user's activations",
});

export const countActivationsOfUser = countRoute("owner", {
  path: "/activation/ofuser/{userUUID}/count",
  operationId: "countActivationsOfUser",
  summary: "Count a user's activations",
  tags,
  params: UserUuidParam,
});

export const getActivation = getRoute("owner", {
  path: "/activation/{id}",
  operationId: "getActivation",
  summary: "Get an activation",
  description: "For the user who holds it, or an admin.",
  tags,
  resource: ActivationResource,
  returns: "The activation",
});

export const createActivation = defineRoute("admin", {
  method: "post",
  path: "/activation",
  operationId: "createActivation",
  summary: "Give a user a book",
  tags,
  request: { body: jsonBody(ActivationInput) },
  errors: ["CONFLICT"],
  responses: { 201: { ...resourceContent(ActivationResource, "The new activation"), headers: location } },
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
  // FORBIDDEN: a user (not an admin) naming someone else in `userUuid`.
  errors: [
    "FORBIDDEN",
    "NOT_FOUND",
    "QR_CODE_DISABLED",
    "QR_CODE_EXHAUSTED",
    "QR_CODE_EXPIRED",
    "TOO_MANY_REQUESTS",
  ],
  responses: {
    200: resourceContent(ActivationResource, "The user already held the book: the existing activation"),
    201: { ...resourceContent(ActivationResource, "The new activation"), headers: location },
  },
});

export const updateActivation = defineRoute("admin", {
  method: "put",
  path: "/activation/{id}",
  operationId: "updateActivation",
  summary: "Replace an activation's book and user",
  tags,
  request: { params: IdParam, body: jsonBody(ActivationInput) },
  errors: ["NOT_FOUND", "CONFLICT"],
  responses: { 200: resourceContent(ActivationResource, "The updated activation") },
});

export const deleteActivation = defineRoute("admin", {
  method: "delete",
  path: "/activation/{id}",
  operationId: "deleteActivation",
  summary: "Delete an activation",
  description: "The entitlement ends; if it came from a QR code, the code gets the slot back.",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(ActivationResource, "The deleted activation") },
});
