import { defineRoute } from "../../http/define-route";
import { IdParam, jsonBody } from "../../http/openapi";
import { locationHeader, resourceContent } from "../../http/respond";
import { countRoute, listRoute } from "../../http/route-shapes";
import { activationSortFields } from "../../repositories/activations";
import * as schemas from "./activations.schemas";

const tags = ["Activation"];
const location = "URL of the activation";

export const listActivations = listRoute("admin", {
  path: "/activation",
  operationId: "listActivations",
  summary: "List all activations",
  description:
    "All activations, or those the filters name (book, user, source, creation time); the filters combine (all must hold).",
  tags,
  list: schemas.ActivationList,
  sortFields: activationSortFields,
  filters: schemas.activationFilters,
  returns: "The activations",
});

export const countActivations = countRoute("admin", {
  path: "/activation/count",
  operationId: "countActivations",
  summary: "Count activations",
  description: "With the filters of listActivations.",
  tags,
  query: schemas.ActivationFilterQuery,
});

export const listActivationsOfUser = listRoute("owner", {
  path: "/activation/ofuser/{userUUID}",
  operationId: "listActivationsOfUser",
  summary: "List a user's activations",
  tags,
  params: schemas.UserUuidParam,
  list: schemas.ActivationList,
  sortFields: activationSortFields,
  returns: "The user's activations",
});

export const countActivationsOfUser = countRoute("owner", {
  path: "/activation/ofuser/{userUUID}/count",
  operationId: "countActivationsOfUser",
  summary: "Count a user's activations",
  tags,
  params: schemas.UserUuidParam,
});

export const getActivation = defineRoute("owner", {
  method: "get",
  path: "/activation/{id}",
  operationId: "getActivation",
  summary: "Get an activation",
  description: "For the user who holds it, or an admin.",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.ActivationResource, "The activation") },
});

export const createActivation = defineRoute("admin", {
  method: "post",
  path: "/activation",
  operationId: "createActivation",
  summary: "Give a user a book",
  tags,
  request: { body: jsonBody(schemas.ActivationInput) },
  errors: ["CONFLICT"],
  responses: {
    201: {
      ...resourceContent(schemas.ActivationResource, "The new activation"),
      headers: locationHeader(location),
    },
  },
});

export const redeemActivationQrCode = defineRoute("user", {
  method: "post",
  path: "/activation/by-qr-code",
  operationId: "redeemActivationQrCode",
  summary: "Redeem an activation code",
  description:
    "201 with the new activation. A user who already holds the book gets 200 with the existing activation and the code is not consumed — unless that activation stands only on a shop order: then the code is consumed and recorded on it (qrCodeId), so a later refund of the order leaves the reader the book their printed code paid for. Concurrent redemptions never exceed the code's maxActivations. A code past its expiresAt → 409 QR_CODE_EXPIRED. Failed attempts (unknown, disabled, expired, used-up codes) are counted per user and per client address; over the limit → 429 with Retry-After.",
  tags,
  request: { body: jsonBody(schemas.RedeemInput) },
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
    200: resourceContent(
      schemas.ActivationResource,
      "The user already held the book: the existing activation (the code recorded on it when it stood only on a shop order)",
    ),
    201: {
      ...resourceContent(schemas.ActivationResource, "The new activation"),
      headers: locationHeader(location),
    },
  },
});

export const updateActivation = defineRoute("admin", {
  method: "put",
  path: "/activation/{id}",
  operationId: "updateActivation",
  summary: "Replace an activation's book and user",
  tags,
  request: { params: IdParam, body: jsonBody(schemas.ActivationInput) },
  errors: ["NOT_FOUND", "CONFLICT"],
  responses: { 200: resourceContent(schemas.ActivationResource, "The updated activation") },
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
  responses: { 200: resourceContent(schemas.ActivationResource, "The deleted activation") },
});
