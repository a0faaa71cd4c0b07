import { defineRoute } from "../../lib/define-route";
import { jsonBody, jsonContent } from "../../lib/openapi";
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
  errors: ["EMAIL_MISSING", "EMAIL_MALFORMED", "EMAIL_ALREADY_EXISTS", "TOO_MANY_REQUESTS"],
  responses: { 201: jsonContent(Session, "The account was created; here is its session") },
});

export const login = defineRoute("public", {
  method: "post",
  path: "/authentication/login",
  operationId: "login",
  summary: "Log in with a store account",
  description: "An unknown user and a wrong password get the same answer.",
  tags,
  request: { body: jsonBody(LoginInput) },
  errors: ["AUTHENTICATION_FAILED", "TOO_MANY_REQUESTS"],
  responses: { 200: jsonContent(Session, "A new session") },
});

export const logout = defineRoute("user", {
  method: "post",
  path: "/authentication/logout",
  operationId: "logout",
  summary: "End this session (or all of them)",
  description: "The token stops working at once. The body may be empty.",
  tags,
  // Not required: defineRoute reads an empty body as `{}`.
  request: { body: { ...jsonBody(LogoutInput), required: false } },
  responses: { 200: jsonContent(LogoutResult, "Logged out") },
});

export const me = defineRoute("user", {
  method: "get",
  path: "/authentication/me",
  operationId: "getMe",
  summary: "The authenticated user",
  tags,
  errors: ["NOT_FOUND"],
  responses: { 200: jsonContent(User, "The caller") },
});
