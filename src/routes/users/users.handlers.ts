import { listRequestOf, respondList, respondResource } from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/users";
import type * as routes from "./users.routes";
import { toUserOf, UserList, UserResource } from "./users.schemas";

export const listUsers: AppRouteHandler<typeof routes.listUsers> = async (c) => {
  const query = c.req.valid("query");
  const { window, paging } = listRequestOf(query);
  const { db, store } = c.get("deps");
  const list = await service.searchUsers(db, store, query.q, window);
  return respondList(c, UserList, list, toUserOf, paging, 200);
};

export const getUser: AppRouteHandler<typeof routes.getUser> = async (c) => {
  const { db, store } = c.get("deps");
  const user = await service.getUser(db, store, c.req.valid("param").userUUID);
  return respondResource(c, UserResource, toUserOf(user));
};
