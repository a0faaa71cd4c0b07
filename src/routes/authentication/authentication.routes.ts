import { defineRoute } from "../../auth/access";
import { emptyBodyAsObject } from "../../lib/bounded-body";
import { errorResponses, jsonBody, jsonContent } from "../../lib/openapi";
import {
  LoginInput,
  LogoutInput,
  LogoutResult,
  RegisterInput,
  Session,
  User,
} from "./authentication.schemas";

const tags = ["Authentication"];

export const register = defineRoute("public", {
  method: "post",
  path: "/authentication/register",
  operationId: "register",
  summary: "Register a new reader account",
  description: "Creates the customer in the shop's user store first, then opens a session.",
  tags,
  request: { body: jsonBody(RegisterInput) },
  responses: {
    201: jsonContent(Session, "The account was created; here is its session"),
    ...errorResponses(
      "EMAIL_MISSING",
      "EMAIL_MALFORMED",
      "VALIDATION_FAILED",
      "INVALID_DEFINITION",
      "EMAIL_ALREADY_EXISTS",
      "UNSUPPORTED_MEDIA_TYPE",
      "PAYLOAD_TOO_LARGE",
      "TOO_MANY_REQUESTS",
    ),
  },
});

export const login = defineRoute("public", {
  method: "post",
  path: "/authentication/login",
  operationId: "login",
  summary: "Log in with a store account",
  description: "An unknown user and a wrong password get the same answer.",
  tags,
  request: { body: jsonBody(LoginInput) },
  responses: {
    200: jsonContent(Session, "A new session"),
    ...errorResponses(
      "VALIDATION_FAILED",
      "INVALID_DEFINITION",
      "AUTHENTICATION_FAILED",
      "UNSUPPORTED_MEDIA_TYPE",
      "PAYLOAD_TOO_LARGE",
      "TOO_MANY_REQUESTS",
    ),
  },
});

export const logout = defineRoute(
  "user",
  {
    method: "post",
    path: "/authentication/logout",
    operationId: "logout",
    summary: "End this session (or all of them)",
    description: "The token stops working at once. The body may be empty.",
    tags,
    request: { body: { ...jsonBody(LogoutInput), required: false } },
    responses: {
      200: jsonContent(LogoutResult, "Logged out"),
      ...errorResponses(
        "VALIDATION_FAILED",
        "INVALID_DEFINITION",
        "UNSUPPORTED_MEDIA_TYPE",
        "PAYLOAD_TOO_LARGE",
      ),
    },
  },
  [emptyBodyAsObject],
);

export const me = defineRoute("user", {
  method: "get",
  path: "/authentication/me",
  operationId: "getMe",
  summary: "The authenticated user",
  tags,
  responses: {
    200: jsonContent(User, "The caller"),
    ...errorResponses("NOT_FOUND"),
  },
});
