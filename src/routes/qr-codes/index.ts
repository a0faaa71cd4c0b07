import { createResourceRouter } from "../../http/create-router";
import * as handlers from "./qr-codes.handlers";
import * as routes from "./qr-codes.routes";

/**
 * The routes in the order they are handed over. createResourceRouter sorts them by path, but
 * keeps the order of those its sort does not rank, and that order is the one the OpenAPI
 * document (and Swagger UI) lists them in. A namespace import gives the exports sorted by name,
 * so this list keeps the document as it was before the exports were named after their
 * operationIds; `satisfies` holds it to every route of the module.
 */
const inDocumentOrder = {
  countActivationQrCodes: routes.countActivationQrCodes,
  countActivationQrCodesOfBook: routes.countActivationQrCodesOfBook,
  createActivationQrCode: routes.createActivationQrCode,
  createActivationQrCodeBatch: routes.createActivationQrCodeBatch,
  getUnusedActivationQrCodesOfBook: routes.getUnusedActivationQrCodesOfBook,
  getActivationQrCode: routes.getActivationQrCode,
  getActivationQrCodeImage: routes.getActivationQrCodeImage,
  getActivationQrCodeSvg: routes.getActivationQrCodeSvg,
  listActivationQrCodes: routes.listActivationQrCodes,
  listActivationQrCodesOfBook: routes.listActivationQrCodesOfBook,
  setActivationQrCodeEnabled: routes.setActivationQrCodeEnabled,
} satisfies typeof routes;

export const qrCodesRouter = createResourceRouter(inDocumentOrder, handlers);
