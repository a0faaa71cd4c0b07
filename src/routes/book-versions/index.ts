import { createRouter } from "../../lib/create-router";
import * as handlers from "./book-versions.handlers";
import * as routes from "./book-versions.routes";

export const bookVersionsRouter = createRouter()
  .openapi(routes.countBookVersions, handlers.countBookVersions)
  .openapi(routes.listBookVersions, handlers.listBookVersions)
  .openapi(routes.getBookVersion, handlers.getBookVersion)
  .openapi(routes.createBookVersion, handlers.createBookVersion)
  .openapi(routes.updateBookVersion, handlers.updateBookVersion)
  .openapi(routes.deleteBookVersion, handlers.deleteBookVersion)
  .openapi(routes.listVersionsOfBook, handlers.listVersionsOfBook)
  .openapi(routes.uploadArchive, handlers.uploadArchive)
  .openapi(routes.downloadArchive, handlers.downloadArchive)
  .openapi(routes.downloadNewestVersion, handlers.downloadNewestVersion);
