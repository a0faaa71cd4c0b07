import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./authentication.handlers";
import * as routes from "./authentication.routes";

export const authenticationRouter = createResourceRouter(routes, handlers);
