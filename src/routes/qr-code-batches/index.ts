import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./qr-code-batches.handlers";
import * as routes from "./qr-code-batches.routes";

export const qrCodeBatchesRouter = createResourceRouter(routes, handlers);
