import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./service.handlers";
import * as routes from "./service.routes";

export const serviceRouter = createResourceRouter(routes, handlers);
