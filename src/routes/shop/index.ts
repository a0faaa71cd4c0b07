import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./shop.handlers";
import * as routes from "./shop.routes";

export const shopRouter = createResourceRouter(routes, handlers);
