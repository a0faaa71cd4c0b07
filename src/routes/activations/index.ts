import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./activations.handlers";
import * as routes from "./activations.routes";
import * as bookHandlers from "./book-activations.handlers";
import * as bookRoutes from "./book-activations.routes";

export const activationsRouter = createResourceRouter(routes, handlers);

/** `/book/{id}/activations`: its own router, so the document can list it with a book's views. */
export const bookActivationsRouter = createResourceRouter(bookRoutes, bookHandlers);
