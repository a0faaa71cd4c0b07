import { defineRoute } from "../../http/define-route";
import { resourceContent } from "../../http/respond";
import { listRoute } from "../../http/route-shapes";
import { userSortFields } from "../../services/users";
import * as schemas from "./users.schemas";

const tags = ["User"];

export const listUsers = listRoute("admin", {
  path: "/user",
  operationId: "listUsers",
  summary: "Search the store's users",
  description:
    'The users whose e-mail, login, first or last name starts with `q`, read from the store\'s indexes one page at a time (on a WordPress store: user_login, user_email and user_nicename; first and last names only on the embedded store, README "Finding users and activations").',
  tags,
  list: schemas.UserList,
  sortFields: userSortFields,
  filters: schemas.userFilters,
  defaultOrder: "the store's user id ascending (oldest account first)",
  returns: "The matching users",
});

export const getUser = defineRoute("admin", {
  method: "get",
  path: "/user/{userUUID}",
  operationId: "getUser",
  summary: "Get a user of the store",
  tags,
  request: { params: schemas.UserUuidParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.UserResource, "The user with their roles") },
});
