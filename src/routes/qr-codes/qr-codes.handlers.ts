import { auditSourceOf } from "../../http/audit-source";
import {
  listRequestOf,
  respondCount,
  respondCreated,
  respondList,
  respondResource,
  respondResourceWithList,
} from "../../http/respond";
import type { AppRouteHandler } from "../../http/types";
import { streamOfRows } from "../../lib/list-window";
import * as service from "../../services/qr-codes";
import type * as routes from "./qr-codes.routes";
import { NullActivationsResource, QrCodeList, QrCodeResource, toQrCode } from "./qr-codes.schemas";

export const listActivationQrCodes: AppRouteHandler<typeof routes.listActivationQrCodes> = async (c) => {
  const query = c.req.valid("query");
  const { window, paging } = listRequestOf(query);
  const { db } = c.get("deps");
  if (query.code !== undefined) {
    // One code at most: a page of a one-row list, the row only on its first page.
    const found = await service.findCodeByText(db, query.code);
    const rows = found && !window.offset ? [found] : [];
    return respondList(c, QrCodeList, { rows, total: found ? 1 : 0 }, toQrCode, paging, 200);
  }
  const list = await service.listQrCodes(db, window);
  return respondList(c, QrCodeList, list, toQrCode, paging, 200);
};

export const countActivationQrCodes: AppRouteHandler<typeof routes.countActivationQrCodes> = async (c) => {
  const { code } = c.req.valid("query");
  const { db } = c.get("deps");
  const count =
    code === undefined ? await service.countQrCodes(db) : (await service.findCodeByText(db, code)) ? 1 : 0;
  return respondCount(c, count);
};

export const listActivationQrCodesOfBook: AppRouteHandler<typeof routes.listActivationQrCodesOfBook> = async (
  c,
) => {
  const { bookId } = c.req.valid("param");
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listQrCodesOfBook(c.get("deps").db, bookId, window);
  return respondList(c, QrCodeList, list, toQrCode, paging, 200);
};

export const countActivationQrCodesOfBook: AppRouteHandler<
  typeof routes.countActivationQrCodesOfBook
> = async (c) => {
  const { bookId } = c.req.valid("param");
  const count = await service.countQrCodesOfBook(c.get("deps").db, bookId);
  return respondCount(c, count);
};

export const getUnusedActivationQrCodesOfBook: AppRouteHandler<
  typeof routes.getUnusedActivationQrCodesOfBook
> = async (c) => {
  const { bookId } = c.req.valid("param");
  const list = await service.unusedQrCodesOfBook(c.get("deps").db, bookId);
  return respondResourceWithList(
    c,
    NullActivationsResource,
    (count) => ({ bookId, count, qrCodes: [] }),
    "qrCodes",
    list,
    QrCodeResource,
    toQrCode,
  );
};

export const getActivationQrCode: AppRouteHandler<typeof routes.getActivationQrCode> = async (c) => {
  const { id } = c.req.valid("param");
  const qrCode = await service.getQrCode(c.get("deps").db, id);
  return respondResource(c, QrCodeResource, toQrCode(qrCode));
};

export const getActivationQrCodeImage: AppRouteHandler<typeof routes.getActivationQrCodeImage> = async (
  c,
) => {
  const { db, config } = c.get("deps");
  const { size } = c.req.valid("query");
  const qrCode = await service.getQrCode(db, c.req.valid("param").id);
  const template = config.qrPayloadTemplate;
  const etag = service.qrImageEtag(template, qrCode.code, size);
  // Admin-only content: browsers may keep it, but must ask again (a cheap 304) before using it.
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesEtag(c.req.valid("header")["if-none-match"], etag)) return c.body(null, 304, headers);
  const png = await service.renderQrPng(template, qrCode.code, size);
  return c.body(png, 200, {
    ...headers,
    "Content-Type": "image/png",
    "Content-Disposition": `inline; filename="qr-${qrCode.code}.png"`,
  });
};

export const getActivationQrCodeSvg: AppRouteHandler<typeof routes.getActivationQrCodeSvg> = async (c) => {
  const { db, config } = c.get("deps");
  const qrCode = await service.getQrCode(db, c.req.valid("param").id);
  const template = config.qrPayloadTemplate;
  const etag = service.qrSvgEtag(template, qrCode.code);
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesEtag(c.req.valid("header")["if-none-match"], etag)) return c.body(null, 304, headers);
  return c.body(service.renderQrSvg(template, qrCode.code), 200, {
    ...headers,
    "Content-Type": "image/svg+xml",
    // An SVG opened from this origin could run script; this one has none, and may not load any.
    "Content-Security-Policy": "default-src 'none'",
    "Content-Disposition": `inline; filename="qr-${qrCode.code}.svg"`,
  });
};

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2), and `*` matches anything. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

export const createActivationQrCode: AppRouteHandler<typeof routes.createActivationQrCode> = async (c) => {
  const { db, clock } = c.get("deps");
  const qrCode = await service.createQrCode(db, auditSourceOf(c), c.req.valid("json"), clock.now());
  return respondCreated(c, QrCodeResource, toQrCode(qrCode));
};

export const createActivationQrCodeBatch: AppRouteHandler<typeof routes.createActivationQrCodeBatch> = async (
  c,
) => {
  const { db, clock } = c.get("deps");
  const rows = await service.createQrCodeBatch(db, auditSourceOf(c), c.req.valid("json"), clock.now());
  // Sent a chunk a turn: 10,000 codes in one body held the loop while it was made.
  return respondList(c, QrCodeList, streamOfRows(rows), toQrCode, undefined, 201);
};

export const setActivationQrCodeEnabled: AppRouteHandler<typeof routes.setActivationQrCodeEnabled> = async (
  c,
) => {
  const { db, clock } = c.get("deps");
  const { enabled } = c.req.valid("json");
  const qrCode = await service.setQrCodeEnabled(
    db,
    auditSourceOf(c),
    c.req.valid("param").id,
    enabled,
    clock.now(),
  );
  return respondResource(c, QrCodeResource, toQrCode(qrCode));
};
