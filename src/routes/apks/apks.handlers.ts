import type { Context } from "hono";
import { withTransaction } from "../../db/transaction";
import { countText } from "../../lib/count-response";
import { respondResource } from "../../lib/hal";
import { notFound } from "../../lib/problems";
import { limitOffset, orderByOf, pagingOf, respondList } from "../../lib/sort-and-page";
import type { AppBindings, AppRouteHandler } from "../../lib/types";
import * as repo from "../../repositories/apks";
import * as service from "../../services/apks";
import { receiveFile, recordBlob, sendBlob } from "../../services/files";
import type * as routes from "./apks.routes";
import { apkLinks, toApk } from "./apks.schemas";

export const listApks: AppRouteHandler<typeof routes.listApks> = async (c) => {
  const { db } = c.get("deps");
  const query = c.req.valid("query");
  const { apk } = db.tables;
  const paging = pagingOf(query);
  const orderBy = orderByOf(
    query.sort,
    { id: apk.id, kind: apk.kind, versionCode: apk.versionCode, createdAt: apk.createdAt },
    apk.id,
  );
  const [rows, total] = await Promise.all([
    repo.listApks(db, { orderBy, ...limitOffset(paging) }),
    repo.countApks(db),
  ]);
  return respondList(c, { rel: "apks", items: rows.map(toApk), total, paging, links: apkLinks }) as never;
};

export const countApks: AppRouteHandler<typeof routes.countApks> = async (c) => {
  return countText(c, await repo.countApks(c.get("deps").db)) as never;
};

export const getActiveApks: AppRouteHandler<typeof routes.getActiveApks> = async (c) => {
  const active = await repo.findActiveApks(c.get("deps").db);
  const of = (kind: repo.ApkKind) => {
    const row = active.find((apk) => apk.kind === kind);
    return row ? toApk(row) : null;
  };
  // Devices poll this: let them revalidate cheaply instead of caching a stale answer.
  c.header("Cache-Control", "no-cache");
  return c.json({ bookapp: of("bookapp"), launcher: of("launcher") }, 200);
};

function sendApk(c: Context<AppBindings>, apk: repo.ApkRow, cacheControl: string): Response {
  if (!apk.fileSha256 || !apk.fileUploadedAt) throw notFound(`The file of APK ${apk.id}`);
  return sendBlob(c.get("deps"), c.req.raw, {
    sha256: apk.fileSha256,
    size: apk.fileSize ?? 0,
    lastModified: apk.fileUploadedAt,
    contentType: "application/octet-stream",
    filename: `${apk.kind}-${apk.versionName}.apk`,
    disposition: "attachment",
    cacheControl,
  });
}

async function downloadActive(c: Context<AppBindings>, kind: repo.ApkKind): Promise<Response> {
  const apk = await repo.findActiveApk(c.get("deps").db, kind);
  if (!apk) throw notFound(`An active ${kind}`);
  // A fixed URL whose bytes change: caches must revalidate with the ETag every time.
  return sendApk(c, apk, "no-cache");
}

export const downloadActiveBookapp: AppRouteHandler<typeof routes.downloadActiveBookapp> = (c) =>
  downloadActive(c, "bookapp") as never;

export const downloadActiveLauncher: AppRouteHandler<typeof routes.downloadActiveLauncher> = (c) =>
  downloadActive(c, "launcher") as never;

export const getApk: AppRouteHandler<typeof routes.getApk> = async (c) => {
  const apk = await service.getApk(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, toApk(apk), (base) => apkLinks(apk, base)) as never;
};

export const downloadApk: AppRouteHandler<typeof routes.downloadApk> = async (c) => {
  const apk = await service.getApk(c.get("deps").db, c.req.valid("param").id);
  return sendApk(c, apk, "private, no-cache") as never;
};

export const createApk: AppRouteHandler<typeof routes.createApk> = async (c) => {
  const { db, clock } = c.get("deps");
  const apk = await service.createApk(db, c.req.valid("json"), clock.now());
  c.header("Location", `/apk/${apk.id}`);
  return respondResource(c, toApk(apk), (base) => apkLinks(apk, base), 201) as never;
};

export const uploadApk: AppRouteHandler<typeof routes.uploadApk> = async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  // 404 before a large body is read.
  await service.getApk(deps.db, id);
  const file = await receiveFile(deps, c.req.raw, "apk");
  const now = deps.clock.now();
  const apk = await withTransaction(deps.db, async (tx) => {
    await recordBlob(tx, file.sha256, file.size, now);
    const updated = await repo.updateApk(
      tx,
      id,
      { fileSha256: file.sha256, fileSize: file.size, fileFilename: file.filename, fileUploadedAt: now },
      now,
    );
    if (!updated) throw notFound(`APK ${id}`);
    return updated;
  });
  return c.json(toApk(apk), 200);
};

export const updateApk: AppRouteHandler<typeof routes.updateApk> = async (c) => {
  const { db, clock } = c.get("deps");
  const apk = await service.replaceApk(db, c.req.valid("param").id, c.req.valid("json"), clock.now());
  return respondResource(c, toApk(apk), (base) => apkLinks(apk, base)) as never;
};

export const deleteApk: AppRouteHandler<typeof routes.deleteApk> = async (c) => {
  const apk = await service.removeApk(c.get("deps").db, c.req.valid("param").id);
  return c.json(toApk(apk), 200);
};
