import { createRouter } from "../../lib/create-router";
import * as handlers from "./qr-code-batches.handlers";
import * as routes from "./qr-code-batches.routes";

// Mounted before the QR code router, so `/activation-qr-code/batch/{id}…` never reaches `{id}` routes.
export const qrCodeBatchesRouter = createRouter()
  .openapi(routes.listQrCodeBatchesOfBook, handlers.listQrCodeBatchesOfBook)
  .openapi(routes.getQrCodeBatch, handlers.getQrCodeBatch)
  .openapi(routes.setQrCodeBatchEnabled, handlers.setQrCodeBatchEnabled)
  .openapi(routes.getQrCodeBatchCsv, handlers.getQrCodeBatchCsv)
  .openapi(routes.getQrCodeBatchSheet, handlers.getQrCodeBatchSheet);
