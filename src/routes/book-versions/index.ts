import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./book-versions.handlers";
import * as routes from "./book-versions.routes";

export const bookVersionsRouter = createResourceRouter(routes, handlers);
