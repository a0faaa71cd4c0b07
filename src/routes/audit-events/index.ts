import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./audit-events.handlers";
import * as routes from "./audit-events.routes";

export const auditEventsRouter = createResourceRouter(routes, handlers);
