import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./books.handlers";
import * as routes from "./books.routes";

export const booksRouter = createResourceRouter(routes, handlers);
