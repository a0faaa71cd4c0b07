import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./authentication.handlers";
import * as routes from "./authentication.routes";

/**
 * The routes in the order they are handed over. createResourceRouter sorts them by path, but
 * keeps the order of those its sort does not rank, and that order is the one the OpenAPI
 * document (and Swagger UI) lists them in. A namespace import gives the exports sorted by name,
 * so this list keeps the document as it was before the exports were named after their
 * operationIds; `satisfies` holds it to every route of the module.
 */
const inDocumentOrder = {
  login: routes.login,
  logout: routes.logout,
  getMe: routes.getMe,
  register: routes.register,
} satisfies typeof routes;

export const authenticationRouter = createResourceRouter(inDocumentOrder, handlers);
