// The reader's views. Each answers with a fixed number of queries however many books there are:
// one query joins book, the caller's activation and the newest version; a paged list adds one
// for its total. The unsorted, unpaged forms the app asks for all the time are prepared.
import { listRequestOf, respondList, respondResource } from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
import * as reader from "../../services/reader";
import type * as routes from "./reader.routes";
import {
  BookWithVersionAndActivationList,
  BookWithVersionAndActivationResource,
  MyBookList,
  toBookWithVersionAndActivation,
  toMyBook,
} from "./reader.schemas";

export const listMyBooks: AppRouteHandler<typeof routes.listMyBooks> = async (c) => {
  const { userUuid } = c.get("principal");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await reader.listMyBooks(c.get("deps").db, userUuid, window);
  return respondList(c, MyBookList, list, toMyBook, paging, 200);
};

export const listBooksWithVersionAndActivation: AppRouteHandler<
  typeof routes.listBooksWithVersionAndActivation
> = async (c) => {
  const { userUuid } = c.get("principal");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await reader.listBooksWithVersionAndActivation(c.get("deps").db, userUuid, window);
  return respondList(c, BookWithVersionAndActivationList, list, toBookWithVersionAndActivation, paging, 200);
};

export const getBookWithVersionAndActivation: AppRouteHandler<
  typeof routes.getBookWithVersionAndActivation
> = async (c) => {
  const { id } = c.req.valid("param");
  const { userUuid } = c.get("principal");
  const row = await reader.getBookWithVersionAndActivation(c.get("deps").db, userUuid, id);
  return respondResource(c, BookWithVersionAndActivationResource, toBookWithVersionAndActivation(row));
};
