import { createRouter } from "../../lib/create-router";
import * as handlers from "./reader.handlers";
import * as routes from "./reader.routes";

// Mounted before the books router, so `my-books` and `all-books-…` win over `/book/{id}`.
export const readerRouter = createRouter()
  .openapi(routes.listMyBooks, handlers.listMyBooks)
  .openapi(routes.listBooksWithVersionAndActivation, handlers.listBooksWithVersionAndActivation)
  .openapi(routes.getBookWithVersionAndActivation, handlers.getBookWithVersionAndActivation)
  .openapi(routes.countActivationsOfBook, handlers.countActivationsOfBook)
  .openapi(routes.listActivationsOfBook, handlers.listActivationsOfBook);
