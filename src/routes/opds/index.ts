import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./opds.handlers";
import * as routes from "./opds.routes";

export const opdsRouter = createResourceRouter(routes, handlers);
