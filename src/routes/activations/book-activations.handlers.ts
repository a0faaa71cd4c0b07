import { listRequestOf, respondCount, respondList } from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
import * as service from "../../services/activations";
import { ActivationList, toActivation } from "./activations.schemas";
import type * as routes from "./book-activations.routes";

export const listActivationsOfBook: AppRouteHandler<typeof routes.listActivationsOfBook> = async (c) => {
  const { id } = c.req.valid("param");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listActivationsOfBook(c.get("deps").db, id, window);
  return respondList(c, ActivationList, list, toActivation, paging, 200);
};

export const countActivationsOfBook: AppRouteHandler<typeof routes.countActivationsOfBook> = async (c) => {
  const { id } = c.req.valid("param");
  const count = await service.countActivationsOfBook(c.get("deps").db, id);
  return respondCount(c, count);
};
