import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./reader.handlers";
import * as routes from "./reader.routes";

export const readerRouter = createResourceRouter(routes, handlers);
