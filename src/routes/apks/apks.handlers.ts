import type { Context } from "hono";
import { authorize } from "../../http/access";
import { auditSourceOf } from "../../http/audit-source";
import { receiveFile } from "../../http/file-upload";
import { baseUrlOf } from "../../http/hal";
import {
  listRequestOf,
  respondCount,
  respondCreated,
  respondList,
  respondResource,
} from "../../http/respond";
import { sendStoredFile } from "../../http/stored-file";
import type { AppBindings, AppRouteHandler } from "../../http/types";
import { notFound } from "../../lib/problems";
import * as service from "../../services/apks";
import type * as routes from "./apks.routes";
import { ApkList, ApkResource, toActiveApk, toApk } from "./apks.schemas";

export const listApks: AppRouteHandler<typeof routes.listApks> = async (c) => {
  const { window, paging } = listRequestOf(c.req.valid("query"));
  const list = await service.listApks(c.get("deps").db, window);
  return respondList(c, ApkList, list, toApk, paging, 200);
};

export const countApks: AppRouteHandler<typeof routes.countApks> = async (c) => {
  const count = await service.countApks(c.get("deps").db);
  return respondCount(c, count);
};

export const getActiveApks: AppRouteHandler<typeof routes.getActiveApks> = async (c) => {
  const { bookapp, launcher } = await service.getActiveApks(c.get("deps").db);
  const base = baseUrlOf(c);
  const of = (row: service.ApkRow | null) => (row ? toActiveApk(row, base) : null);
  // Devices poll this: let them revalidate cheaply instead of caching a stale answer.
  c.header("Cache-Control", "no-cache");
  return c.json({ bookapp: of(bookapp), launcher: of(launcher) }, 200);
};

function sendApk(c: Context<AppBindings>, apk: service.ApkRow, cacheControl: string): Promise<Response> {
  const file = { sha256: apk.fileSha256, size: apk.fileSize, uploadedAt: apk.fileUploadedAt };
  return sendStoredFile(c, `The file of APK ${apk.id}`, file, {
    contentType: "application/octet-stream",
    filename: `${apk.kind}-${apk.versionName}.apk`,
    disposition: "attachment",
    cacheControl,
  });
}

async function downloadActive(c: Context<AppBindings>, kind: service.ApkKind): Promise<Response> {
  const apk = await service.getActiveApk(c.get("deps").db, kind);
  // A fixed URL whose bytes change: caches must revalidate with the ETag every time.
  return sendApk(c, apk, "no-cache");
}

export const downloadActiveBookapp: AppRouteHandler<typeof routes.downloadActiveBookapp> = (c) =>
  downloadActive(c, "bookapp");

export const downloadActiveLauncher: AppRouteHandler<typeof routes.downloadActiveLauncher> = (c) =>
  downloadActive(c, "launcher");

export const getApk: AppRouteHandler<typeof routes.getApk> = async (c) => {
  const { id } = c.req.valid("param");
  const apk = await service.getApk(c.get("deps").db, id);
  return respondResource(c, ApkResource, toApk(apk));
};

/** A versioned URL (`?sha256=`) names one file: other bytes are never served under it. */
function assertVersion(apk: service.ApkRow, sha256: string | undefined): void {
  if (sha256 !== undefined && apk.fileSha256 !== sha256)
    throw notFound(`The file ${sha256} of APK ${apk.id}`);
}

const IMMUTABLE = "max-age=31536000, immutable";

export const downloadApk: AppRouteHandler<typeof routes.downloadApk> = async (c) => {
  const { id } = c.req.valid("param");
  const { sha256 } = c.req.valid("query");
  const published = await service.findApk(c.get("deps").db, id);
  // Only an active APK is public; for anything else (unknown ids too, so they cannot be probed)
  // the caller must be an admin before learning more.
  if (published?.active && published.fileSha256) {
    assertVersion(published, sha256);
    return sendApk(c, published, sha256 ? `public, ${IMMUTABLE}` : "public, no-cache");
  }
  await authorize(c, "admin");
  const apk = await service.getApk(c.get("deps").db, id);
  assertVersion(apk, sha256);
  // An inactive APK's file is for admins: never for shared caches, however long it stays valid.
  return sendApk(c, apk, sha256 ? `private, ${IMMUTABLE}` : "private, no-cache");
};

export const createApk: AppRouteHandler<typeof routes.createApk> = async (c) => {
  const { db, clock } = c.get("deps");
  const apk = await service.createApk(db, auditSourceOf(c), c.req.valid("json"), clock.now());
  return respondCreated(c, ApkResource, toApk(apk));
};

export const uploadApk: AppRouteHandler<typeof routes.uploadApk> = async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  const { allowSignerChange } = c.req.valid("query");
  // 404 or 409 before a large body is read (checked again once it is).
  service.assertFileReplaceable(await service.getApk(deps.db, id));
  const file = await receiveFile(c, "apk");
  // A refused file stays unreferenced in the blob store; the cleanup job removes it.
  const apk = await service.attachApkFile(
    deps.db,
    auditSourceOf(c),
    id,
    { sha256: file.sha256, size: file.size, filename: file.filename, metadata: file.inspected },
    { allowSignerChange: allowSignerChange === "true" },
    deps.clock.now(),
    deps.blobs,
  );
  return respondResource(c, ApkResource, toApk(apk));
};

export const createApkFromFile: AppRouteHandler<typeof routes.createApkFromFile> = async (c) => {
  const deps = c.get("deps");
  const { kind } = c.req.valid("query");
  const file = await receiveFile(c, "apk");
  // A refused file stays unreferenced in the blob store; the cleanup job removes it.
  const apk = await service.createApkFromFile(
    deps.db,
    auditSourceOf(c),
    kind,
    { sha256: file.sha256, size: file.size, filename: file.filename, metadata: file.inspected },
    deps.clock.now(),
    deps.blobs,
  );
  return respondCreated(c, ApkResource, toApk(apk));
};

export const activateApk: AppRouteHandler<typeof routes.activateApk> = async (c) => {
  const { db, clock } = c.get("deps");
  const { allowSignerChange } = c.req.valid("query");
  const apk = await service.activateApk(
    db,
    auditSourceOf(c),
    c.req.valid("param").id,
    { allowSignerChange: allowSignerChange === "true" },
    clock.now(),
  );
  return respondResource(c, ApkResource, toApk(apk));
};

export const updateApk: AppRouteHandler<typeof routes.updateApk> = async (c) => {
  const { db, clock } = c.get("deps");
  const { allowSignerChange } = c.req.valid("query");
  const apk = await service.replaceApk(
    db,
    auditSourceOf(c),
    c.req.valid("param").id,
    c.req.valid("json"),
    { allowSignerChange: allowSignerChange === "true" },
    clock.now(),
  );
  return respondResource(c, ApkResource, toApk(apk));
};

export const deleteApk: AppRouteHandler<typeof routes.deleteApk> = async (c) => {
  const { db, clock } = c.get("deps");
  const { id } = c.req.valid("param");
  const apk = await service.removeApk(db, auditSourceOf(c), id, clock.now());
  return respondResource(c, ApkResource, toApk(apk));
};
