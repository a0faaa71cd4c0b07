// The reader's views. Each answers with a fixed number of queries however many books there are:
// one query joins book, the caller's activation and the newest version; a paged list adds one
// for its total. The unsorted, unpaged forms the app asks for all the time are prepared.
import { countUnderHandler, resourceHandlers } from "../../http/handler-shapes";
import { respondResource } from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
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

const myBooks = resourceHandlers(MyBookList, toMyBook);
const booksWithVersionAndActivation = resourceHandlers(
  BookWithVersionAndActivationList,
  toBookWithVersionAndActivation,
);
const bookActivations = resourceHandlers(ActivationList, toActivation);

export const listMyBooks: AppRouteHandler<typeof routes.listMyBooks> = myBooks.listOfCaller(
  reader.listMyBooks,
);

export const listBooksWithVersionAndActivation: AppRouteHandler<
  typeof routes.listBooksWithVersionAndActivation
> = booksWithVersionAndActivation.listOfCaller(reader.listBooksWithVersionAndActivation);

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

export const listActivationsOfBook: AppRouteHandler<typeof routes.listActivationsOfBook> =
  bookActivations.listUnder("id", activations.listActivationsOfBook);

export const countActivationsOfBook: AppRouteHandler<typeof routes.countActivationsOfBook> =
  countUnderHandler("id", activations.countActivationsOfBook);
