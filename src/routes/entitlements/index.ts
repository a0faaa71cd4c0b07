import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./entitlements.handlers";
import * as routes from "./entitlements.routes";

export const entitlementsRouter = createResourceRouter(routes, handlers);
