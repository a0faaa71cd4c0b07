import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./apks.handlers";
import * as routes from "./apks.routes";

export const apksRouter = createResourceRouter(routes, handlers);
