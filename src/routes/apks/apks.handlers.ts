import type { Context } from "hono";
import { authorize } from "../../auth/access";
import { countText } from "../../lib/count-response";
import { baseUrlOf, respondResource } from "../../lib/hal";
import { notFound } from "../../lib/problems";
import { limitOffset, orderByOf, pagingOf, respondList } from "../../lib/sort-and-page";
import type { AppBindings, AppRouteHandler } from "../../lib/types";
import * as repo from "../../repositories/apks";
import * as service from "../../services/apks";
import { receiveFile, sendBlob } from "../../services/files";
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
  const base = baseUrlOf(c);
  const of = (kind: repo.ApkKind) => {
    const row = active.find((apk) => apk.kind === kind);
    // Versioned by the file's hash: the URL means these bytes only, so it can be cached for good.
    return row
      ? { ...toApk(row), downloadUrl: `${base}/apk/${row.id}/download?sha256=${row.fileSha256}` }
      : null;
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

/** A versioned URL (`?sha256=`) names one file: other bytes are never served under it. */
function assertVersion(apk: repo.ApkRow, sha256: string | undefined): void {
  if (sha256 !== undefined && apk.fileSha256 !== sha256)
    throw notFound(`The file ${sha256} of APK ${apk.id}`);
}

const IMMUTABLE = "max-age=31536000, immutable";

export const downloadApk: AppRouteHandler<typeof routes.downloadApk> = async (c) => {
  const { id } = c.req.valid("param");
  const { sha256 } = c.req.valid("query");
  const published = await repo.findApk(c.get("deps").db, id);
  // Only an active APK is public; for anything else (unknown ids too, so they cannot be probed)
  // the caller must be an admin before learning more.
  if (published?.active && published.fileSha256) {
    assertVersion(published, sha256);
    return sendApk(c, published, sha256 ? `public, ${IMMUTABLE}` : "public, no-cache") as never;
  }
  await authorize(c, "admin");
  const apk = await service.getApk(c.get("deps").db, id);
  assertVersion(apk, sha256);
  // An inactive APK's file is for admins: never for shared caches, however long it stays valid.
  return sendApk(c, apk, sha256 ? `private, ${IMMUTABLE}` : "private, no-cache") as never;
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
  const { allowSignerChange } = c.req.valid("query");
  // 404 or 409 before a large body is read (checked again once it is).
  service.assertFileReplaceable(await service.getApk(deps.db, id));
  const file = await receiveFile(deps, c.req.raw, "apk");
  // A refused file stays unreferenced in the blob store; the cleanup job removes it.
  const apk = await service.attachApkFile(
    deps.db,
    id,
    { sha256: file.sha256, size: file.size, filename: file.filename, metadata: file.inspected },
    { allowSignerChange: allowSignerChange === "true" },
    deps.clock.now(),
    deps.blobs,
  );
  return respondResource(c, toApk(apk), (base) => apkLinks(apk, base)) as never;
};

export const updateApk: AppRouteHandler<typeof routes.updateApk> = async (c) => {
  const { db, clock } = c.get("deps");
  const { allowSignerChange } = c.req.valid("query");
  const apk = await service.replaceApk(
    db,
    c.req.valid("param").id,
    c.req.valid("json"),
    { allowSignerChange: allowSignerChange === "true" },
    clock.now(),
  );
  return respondResource(c, toApk(apk), (base) => apkLinks(apk, base)) as never;
};

export const deleteApk: AppRouteHandler<typeof routes.deleteApk> = async (c) => {
  const apk = await service.removeApk(c.get("deps").db, c.req.valid("param").id);
  return respondResource(c, toApk(apk), (base) => apkLinks(apk, base)) as never;
};
