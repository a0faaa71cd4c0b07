import { createRouter } from "../../lib/create-router";
import * as handlers from "./service.handlers";
import * as routes from "./service.routes";

export const serviceRouter = createRouter().openapi(routes.health, handlers.health);
