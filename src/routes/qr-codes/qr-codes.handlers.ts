import type { Context } from "hono";
import { countText } from "../../lib/count-response";
import { baseUrlOf, respondResource, wantsHal, withLinks } from "../../lib/hal";
import { limitOffset, orderByOf, pagingOf, respondList } from "../../lib/sort-and-page";
import type { AppBindings, AppRouteHandler } from "../../lib/types";
import * as repo from "../../repositories/qr-codes";
import * as service from "../../services/qr-codes";
import type * as routes from "./qr-codes.routes";
import { qrCodeLinks, toQrCode } from "./qr-codes.schemas";

type ListQuery = { page?: number; size?: number; sort?: string[] };

/** The codes a filter covers, as a list of API.md §1 (sort, paging, headers, HAL). */
async function respondQrCodes(c: Context<AppBindings>, query: ListQuery, filter: repo.QrCodeFilter) {
  const { db } = c.get("deps");
  const { activationQrCode: q } = db.tables;
  const paging = pagingOf(query);
  const orderBy = orderByOf(
    query.sort,
    { id: q.id, bookId: q.bookId, createdAt: q.createdAt, enabled: q.enabled },
    q.id,
  );
  const [rows, total] = await Promise.all([
    repo.listQrCodes(db, { ...filter, orderBy, ...limitOffset(paging) }),
    repo.countQrCodes(db, filter),
  ]);
  return respondList(c, {
    rel: "activationQrCodes",
    items: rows.map(toQrCode),
    total,
    paging,
    links: qrCodeLinks,
  });
}

export const listQrCodes: AppRouteHandler<typeof routes.listQrCodes> = async (c) => {
  return (await respondQrCodes(c, c.req.valid("query"), {})) as never;
};

export const countQrCodes: AppRouteHandler<typeof routes.countQrCodes> = async (c) => {
  return countText(c, await repo.countQrCodes(c.get("deps").db)) as never;
};

export const listQrCodesOfBook: AppRouteHandler<typeof routes.listQrCodesOfBook> = async (c) => {
  const { bookId } = c.req.valid("param");
  await service.assertBookFound(c.get("deps").db, bookId);
  return (await respondQrCodes(c, c.req.valid("query"), { bookId })) as never;
};

export const countQrCodesOfBook: AppRouteHandler<typeof routes.countQrCodesOfBook> = async (c) => {
  const { db } = c.get("deps");
  const { bookId } = c.req.valid("param");
  await service.assertBookFound(db, bookId);
  return countText(c, await repo.countQrCodes(db, { bookId })) as never;
};

export const getNullActivations: AppRouteHandler<typeof routes.getNullActivations> = async (c) => {
  const { bookId } = c.req.valid("param");
  const rows = await service.unusedQrCodesOfBook(c.get("deps").db, bookId);
  // Under HAL the nested codes are resource objects too, each with its own _links.
  const halBase = wantsHal(c) ? baseUrlOf(c) : null;
  const qrCodes = rows.map((row) =>
    halBase === null ? toQrCode(row) : withLinks(toQrCode(row), qrCodeLinks(row, halBase)),
  );
  const links = (base: string) => ({
    self: { href: `${base}/activation-qr-code/ofbook/${bookId}/null-activations` },
    book: { href: `${base}/book/${bookId}` },
  });
  return respondResource(c, { bookId, count: rows.length, qrCodes }, links) as never;
};

export const getQrCode: AppRouteHandler<typeof routes.getQrCode> = async (c) => {
  const qrCode = await service.getQrCode(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, toQrCode(qrCode), (base) => qrCodeLinks(qrCode, base)) as never;
};

export const getQrCodeImage: AppRouteHandler<typeof routes.getQrCodeImage> = async (c) => {
  const { db, config } = c.get("deps");
  const { size } = c.req.valid("query");
  const qrCode = await service.getQrCode(db, c.req.valid("param").id);
  const template = config.qrPayloadTemplate;
  const etag = service.qrImageEtag(template, qrCode.code, size);
  // Admin-only content: browsers may keep it, but must ask again (a cheap 304) before using it.
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesEtag(c.req.header("if-none-match"), etag)) return c.body(null, 304, headers) as never;
  const png = await service.renderQrPng(template, qrCode.code, size);
  return c.body(new Uint8Array(png), 200, {
    ...headers,
    "Content-Type": "image/png",
    "Content-Disposition": `inline; filename="qr-${qrCode.code}.png"`,
  }) as never;
};

export const getQrCodeSvg: AppRouteHandler<typeof routes.getQrCodeSvg> = async (c) => {
  const { db, config } = c.get("deps");
  const qrCode = await service.getQrCode(db, c.req.valid("param").id);
  const template = config.qrPayloadTemplate;
  const etag = service.qrSvgEtag(template, qrCode.code);
  const headers = { ETag: etag, "Cache-Control": "private, no-cache" };
  if (matchesEtag(c.req.header("if-none-match"), etag)) return c.body(null, 304, headers) as never;
  return c.body(service.renderQrSvg(template, qrCode.code), 200, {
    ...headers,
    "Content-Type": "image/svg+xml",
    // An SVG opened from this origin could run script; this one has none, and may not load any.
    "Content-Security-Policy": "default-src 'none'",
    "Content-Disposition": `inline; filename="qr-${qrCode.code}.svg"`,
  }) as never;
};

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2), and `*` matches anything. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

export const createQrCode: AppRouteHandler<typeof routes.createQrCode> = async (c) => {
  const { db, clock } = c.get("deps");
  const qrCode = await service.createQrCode(db, c.req.valid("json"), clock.now());
  c.header("Location", `/activation-qr-code/${qrCode.id}`);
  return respondResource(c, toQrCode(qrCode), (base) => qrCodeLinks(qrCode, base), 201) as never;
};

export const createQrCodeBatch: AppRouteHandler<typeof routes.createQrCodeBatch> = async (c) => {
  const { db, clock } = c.get("deps");
  const rows = await service.createQrCodeBatch(db, c.req.valid("json"), clock.now());
  return respondList(c, {
    rel: "activationQrCodes",
    items: rows.map(toQrCode),
    total: rows.length,
    paging: undefined,
    links: qrCodeLinks,
    status: 201,
  }) as never;
};

export const setQrCodeEnabled: AppRouteHandler<typeof routes.setQrCodeEnabled> = async (c) => {
  const { db, clock } = c.get("deps");
  const { enabled } = c.req.valid("json");
  const qrCode = await service.setQrCodeEnabled(db, c.req.valid("param").id, enabled, clock.now());
  return respondResource(c, toQrCode(qrCode), (base) => qrCodeLinks(qrCode, base)) as never;
};
