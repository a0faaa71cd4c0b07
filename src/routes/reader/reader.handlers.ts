// The reader's views. Each answers with a fixed number of queries however many books there are:
// one query joins book, the caller's activation and the newest version; a paged list adds one
// for its total. The unsorted, unpaged forms the app asks for all the time are prepared.
import { respondCount, respondResource, respondWithList } from "../../lib/respond";
import type { AppRouteHandler } from "../../lib/types";
import * as activations from "../../services/activations";
import * as reader from "../../services/reader";
import { ActivationList, toActivation } from "../activations/activations.schemas";
import type * as routes from "./reader.routes";
import {
  BookWithVersionAndActivationList,
  BookWithVersionAndActivationResource,
  MyBookList,
  toBookWithVersionAndActivation,
  toMyBook,
} from "./reader.schemas";

export const listMyBooks: AppRouteHandler<typeof routes.listMyBooks> = (c) => {
  const { db } = c.get("deps");
  const { userUuid } = c.get("principal");
  return respondWithList(
    c,
    MyBookList,
    c.req.valid("query"),
    (window) => reader.listMyBooks(db, userUuid, window),
    toMyBook,
  );
};

export const listBooksWithVersionAndActivation: AppRouteHandler<
  typeof routes.listBooksWithVersionAndActivation
> = (c) => {
  const { db } = c.get("deps");
  const { userUuid } = c.get("principal");
  return respondWithList(
    c,
    BookWithVersionAndActivationList,
    c.req.valid("query"),
    (window) => reader.listBooksWithVersionAndActivation(db, userUuid, window),
    toBookWithVersionAndActivation,
  );
};

export const getBookWithVersionAndActivation: AppRouteHandler<
  typeof routes.getBookWithVersionAndActivation
> = async (c) => {
  const row = await reader.getBookWithVersionAndActivation(
    c.get("deps").db,
    c.get("principal").userUuid,
    c.req.valid("param").id,
  );
  return respondResource(c, BookWithVersionAndActivationResource, toBookWithVersionAndActivation(row));
};

export const listActivationsOfBook: AppRouteHandler<typeof routes.listActivationsOfBook> = (c) => {
  const { db } = c.get("deps");
  const { id } = c.req.valid("param");
  return respondWithList(
    c,
    ActivationList,
    c.req.valid("query"),
    (window) => activations.listActivationsOfBook(db, id, window),
    toActivation,
  );
};

export const countActivationsOfBook: AppRouteHandler<typeof routes.countActivationsOfBook> = async (c) => {
  return respondCount(c, await activations.countActivationsOfBook(c.get("deps").db, c.req.valid("param").id));
};
