import { createRouter } from "../../lib/create-router";
import * as handlers from "./apks.handlers";
import * as routes from "./apks.routes";

// Fixed segments (`count`, `active`, `download/…`) are registered before `{id}`.
export const apksRouter = createRouter()
  .openapi(routes.countApks, handlers.countApks)
  .openapi(routes.getActiveApks, handlers.getActiveApks)
  .openapi(routes.downloadActiveBookapp, handlers.downloadActiveBookapp)
  .openapi(routes.downloadActiveLauncher, handlers.downloadActiveLauncher)
  .openapi(routes.listApks, handlers.listApks)
  .openapi(routes.getApk, handlers.getApk)
  .openapi(routes.downloadApk, handlers.downloadApk)
  .openapi(routes.createApk, handlers.createApk)
  .openapi(routes.uploadApk, handlers.uploadApk)
  .openapi(routes.updateApk, handlers.updateApk)
  .openapi(routes.deleteApk, handlers.deleteApk);
