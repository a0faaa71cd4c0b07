import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./qr-codes.handlers";
import * as routes from "./qr-codes.routes";

export const qrCodesRouter = createResourceRouter(routes, handlers);
