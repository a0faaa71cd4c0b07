import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./device-tokens.handlers";
import * as routes from "./device-tokens.routes";

export const deviceTokensRouter = createResourceRouter(routes, handlers);
