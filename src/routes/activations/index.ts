import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./activations.handlers";
import * as routes from "./activations.routes";

export const activationsRouter = createResourceRouter(routes, handlers);
