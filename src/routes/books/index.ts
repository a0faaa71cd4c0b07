import { createRouter } from "../../lib/create-router";
import * as handlers from "./books.handlers";
import * as routes from "./books.routes";

// Fixed segments (`count`) are registered before `{id}`.
export const booksRouter = createRouter()
  .openapi(routes.countBooks, handlers.countBooks)
  .openapi(routes.listBooks, handlers.listBooks)
  .openapi(routes.getBook, handlers.getBook)
  .openapi(routes.createBook, handlers.createBook)
  .openapi(routes.updateBook, handlers.updateBook)
  .openapi(routes.deleteBook, handlers.deleteBook)
  .openapi(routes.getCover, handlers.getCover)
  .openapi(routes.uploadCover, handlers.uploadCover);
