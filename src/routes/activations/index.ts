import { createRouter } from "../../lib/create-router";
import * as handlers from "./activations.handlers";
import * as routes from "./activations.routes";

// Fixed segments (`count`, `by-qr-code`, `ofuser`) are registered before `{id}`.
export const activationsRouter = createRouter()
  .openapi(routes.countActivations, handlers.countActivations)
  .openapi(routes.listActivations, handlers.listActivations)
  .openapi(routes.redeemQrCode, handlers.redeemQrCode)
  .openapi(routes.countActivationsOfUser, handlers.countActivationsOfUser)
  .openapi(routes.listActivationsOfUser, handlers.listActivationsOfUser)
  .openapi(routes.getActivation, handlers.getActivation)
  .openapi(routes.createActivation, handlers.createActivation)
  .openapi(routes.updateActivation, handlers.updateActivation)
  .openapi(routes.deleteActivation, handlers.deleteActivation);
