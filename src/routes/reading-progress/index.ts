import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./reading-progress.handlers";
import * as routes from "./reading-progress.routes";

export const readingProgressRouter = createResourceRouter(routes, handlers);
