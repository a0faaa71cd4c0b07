import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./users.handlers";
import * as routes from "./users.routes";

export const usersRouter = createResourceRouter(routes, handlers);
