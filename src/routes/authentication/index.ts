import { createRouter } from "../../lib/create-router";
import * as handlers from "./authentication.handlers";
import * as routes from "./authentication.routes";

export const authenticationRouter = createRouter()
  .openapi(routes.register, handlers.register)
  .openapi(routes.login, handlers.login)
  .openapi(routes.logout, handlers.logout)
  .openapi(routes.me, handlers.me);
