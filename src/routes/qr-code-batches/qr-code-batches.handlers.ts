import type { Context } from "hono";
import { auditSourceOf } from "../../http/audit-source";
import { contentDisposition } from "../../http/file-response";
import { listRequestOf, respondList, respondResource } from "../../http/respond";
import { markStreamedBody } from "../../http/streamed-body";
import type { AppBindings, AppRouteHandler } from "../../http/types";
import { describeError } from "../../lib/logger";
import * as service from "../../services/qr-code-batches";
import type * as routes from "./qr-code-batches.routes";
import { QrCodeBatchList, QrCodeBatchResource, toQrCodeBatch } from "./qr-code-batches.schemas";

export const listQrCodeBatchesOfBook: AppRouteHandler<typeof routes.listQrCodeBatchesOfBook> = async (c) => {
  const { bookId } = c.req.valid("param");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listQrCodeBatchesOfBook(c.get("deps").db, bookId, window);
  return respondList(c, QrCodeBatchList, list, toQrCodeBatch, paging, 200);
};

export const getQrCodeBatch: AppRouteHandler<typeof routes.getQrCodeBatch> = async (c) => {
  const { id } = c.req.valid("param");
  const batch = await service.getQrCodeBatch(c.get("deps").db, id);
  return respondResource(c, QrCodeBatchResource, toQrCodeBatch(batch));
};

export const setQrCodeBatchEnabled: AppRouteHandler<typeof routes.setQrCodeBatchEnabled> = async (c) => {
  const { db, clock } = c.get("deps");
  const { enabled } = c.req.valid("json");
  const batch = await service.setQrCodeBatchEnabled(
    db,
    auditSourceOf(c),
    c.req.valid("param").id,
    enabled,
    clock.now(),
  );
  return respondResource(c, QrCodeBatchResource, toQrCodeBatch(batch));
};

export const getQrCodeBatchCsv: AppRouteHandler<typeof routes.getQrCodeBatchCsv> = async (c) => {
  const { db, clock } = c.get("deps");
  const csv = await service.batchCsvFile(db, c.req.valid("param").id, clock.now());
  return markStreamedBody(
    c.body(reportingFailures(c, csv.stream), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": contentDisposition("attachment", csv.filename),
      "Cache-Control": "private, no-store",
    }),
  );
};

export const getQrCodeBatchSheet: AppRouteHandler<typeof routes.getQrCodeBatchSheet> = async (c) => {
  const { db, config } = c.get("deps");
  const sheet = await service.batchSheet(
    db,
    c.req.valid("param").id,
    c.req.valid("query"),
    config.qrPayloadTemplate,
  );
  return markStreamedBody(
    c.body(reportingFailures(c, sheet.stream), 200, {
      "Content-Type": "application/pdf",
      // Saved, not shown: a browser (Swagger UI among them) keeps the file under this name.
      "Content-Disposition": contentDisposition("attachment", sheet.filename),
      "Cache-Control": "private, no-store",
    }),
  );
};

/**
 * Once a streamed body has begun, a failure can no longer become a problem response: the
 * connection is cut, so the client sees an incomplete download. This logs it with the request id.
 */
function reportingFailures(
  c: Context<AppBindings>,
  stream: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const reader = stream.getReader();
  // A client that goes away cancels this stream while a read may be pending: that read then ends
  // the cancelled stream, which is no failure, and this stream may no longer be closed or fed.
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (cancelled) return;
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        if (cancelled) return;
        const { logger } = c.get("deps");
        logger.error("streamed download failed", { requestId: c.get("requestId"), ...describeError(error) });
        controller.error(error);
      }
    },
    cancel(reason) {
      cancelled = true;
      return reader.cancel(reason);
    },
  });
}
