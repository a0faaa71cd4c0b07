import { defineRoute } from "../../http/define-route";
import { jsonBody, jsonContent } from "../../http/openapi";
import * as schemas from "./authentication.schemas";

const tags = ["Authentication"];

/** A token or the caller's profile is for the caller alone: no cache may keep it (no-store). */
const noStore = {
  "Cache-Control": {
    description: "`no-store`: the answer carries a token or the caller's profile",
    schema: { type: "string" as const },
  },
};

export const register = defineRoute("public", {
  method: "post",
  path: "/authentication/register",
  operationId: "register",
  summary: "Register a new reader account",
  description: "Creates the customer in the shop's user store first, then opens a session.",
  tags,
  request: { body: jsonBody(schemas.RegisterInput) },
  errors: ["EMAIL_MISSING", "EMAIL_MALFORMED", "EMAIL_ALREADY_EXISTS", "TOO_MANY_REQUESTS"],
  responses: {
    201: {
      ...jsonContent(schemas.Session, "The account was created; here is its session"),
      headers: noStore,
    },
  },
});

export const login = defineRoute("public", {
  method: "post",
  path: "/authentication/login",
  operationId: "login",
  summary: "Log in with a store account",
  description: "An unknown user and a wrong password get the same answer.",
  tags,
  request: { body: jsonBody(schemas.LoginInput) },
  errors: ["AUTHENTICATION_FAILED", "TOO_MANY_REQUESTS"],
  responses: { 200: { ...jsonContent(schemas.Session, "A new session"), headers: noStore } },
});

export const logout = defineRoute("user", {
  method: "post",
  path: "/authentication/logout",
  operationId: "logout",
  summary: "End this session (or all of them)",
  description: "The token stops working at once. The body may be empty.",
  tags,
  // Not required: defineRoute reads an empty body as `{}`.
  request: { body: { ...jsonBody(schemas.LogoutInput), required: false } },
  responses: { 200: jsonContent(schemas.LogoutResult, "Logged out") },
});

export const getMe = defineRoute("user", {
  method: "get",
  path: "/authentication/me",
  operationId: "getMe",
  summary: "The authenticated user",
  tags,
  errors: ["NOT_FOUND"],
  responses: { 200: { ...jsonContent(schemas.User, "The caller"), headers: noStore } },
});
