import { createRouter } from "../../lib/create-router";
import * as handlers from "./qr-codes.handlers";
import * as routes from "./qr-codes.routes";

// Fixed segments (`count`, `ofbook`, `batch`) are registered before `{id}`.
export const qrCodesRouter = createRouter()
  .openapi(routes.countQrCodes, handlers.countQrCodes)
  .openapi(routes.listQrCodes, handlers.listQrCodes)
  .openapi(routes.countQrCodesOfBook, handlers.countQrCodesOfBook)
  .openapi(routes.getNullActivations, handlers.getNullActivations)
  .openapi(routes.listQrCodesOfBook, handlers.listQrCodesOfBook)
  .openapi(routes.createQrCodeBatch, handlers.createQrCodeBatch)
  .openapi(routes.getQrCode, handlers.getQrCode)
  .openapi(routes.getQrCodeImage, handlers.getQrCodeImage)
  .openapi(routes.getQrCodeSvg, handlers.getQrCodeSvg)
  .openapi(routes.createQrCode, handlers.createQrCode)
  .openapi(routes.setQrCodeEnabled, handlers.setQrCodeEnabled);
