import { defineRoute } from "../../http/define-route";
import { uploadErrors } from "../../http/download-docs";
import { fileUploadBody, IdParam, jsonBody, jsonContent } from "../../http/openapi";
import { locationHeader, resourceContent } from "../../http/respond";
import { countRoute, downloadRoute, listRoute } from "../../http/route-shapes";
import { apkSortFields } from "../../repositories/apks";
import * as schemas from "./apks.schemas";

const tags = ["APK"];

export const listApks = listRoute("admin", {
  path: "/apk",
  operationId: "listApks",
  summary: "List APKs",
  tags,
  list: schemas.ApkList,
  sortFields: apkSortFields,
  returns: "The APKs",
});

export const countApks = countRoute("admin", {
  path: "/apk/count",
  operationId: "countApks",
  summary: "Count APKs",
  tags,
});

export const getActiveApks = defineRoute("public", {
  method: "get",
  path: "/apk/active",
  operationId: "getActiveApks",
  summary: "The active bookapp and launcher",
  description:
    "What a device needs to check for an update: versionCode, minSdk, the signing certificate's SHA-256, the file's size and sha256, and `downloadUrl`, this build's own download URL.",
  tags,
  responses: { 200: jsonContent(schemas.ActiveApks, "The active APK of each kind, or null") },
});

/** The fixed path devices download the active APK of a kind from. */
function activeApkDownloadRoute<const K extends "bookapp" | "launcher">(
  kind: K,
  operationId: `downloadActive${Capitalize<K>}`,
) {
  return downloadRoute("public", {
    path: `/apk/download/active${kind}`,
    operationId,
    summary: `Download the active ${kind}`,
    description: `A fixed path for devices: \`${kind}-<versionName>.apk\`, with ETag so update checks can be conditional.`,
    tags,
    contentType: "application/octet-stream",
    returns: `The active ${kind} APK`,
  });
}

export const downloadActiveBookapp = activeApkDownloadRoute("bookapp", "downloadActiveBookapp");

export const downloadActiveLauncher = activeApkDownloadRoute("launcher", "downloadActiveLauncher");

export const getApk = defineRoute("admin", {
  method: "get",
  path: "/apk/{id}",
  operationId: "getApk",
  summary: "Get an APK record",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.ApkResource, "The APK") },
});

export const downloadApk = downloadRoute("published", {
  path: "/apk/{id}/download",
  operationId: "downloadApk",
  summary: "Download an APK's file",
  description:
    "Anyone may download the file of an active APK (the `downloadUrl` of GET /apk/active); any other APK's file is for admins only: 401 without credentials, 403 for a non-admin. " +
    "With `sha256` (as `downloadUrl` carries it) the URL names one file's bytes: it is cached as immutable, and answers 404 when the APK holds another file; without it, caches must revalidate.",
  tags,
  params: IdParam,
  query: schemas.ApkDownloadQuery,
  contentType: "application/octet-stream",
  returns: "The APK file",
});

export const createApk = defineRoute("admin", {
  method: "post",
  path: "/apk",
  operationId: "createApk",
  summary: "Create an APK record",
  description: "Upload the file with POST /apk/{id}/upload, then make it active with PUT.",
  tags,
  request: { body: jsonBody(schemas.ApkInput) },
  errors: ["CONFLICT"],
  responses: {
    201: {
      ...resourceContent(schemas.ApkResource, "The new APK record"),
      headers: locationHeader("URL of the new APK"),
    },
  },
});

export const createApkFromFile = defineRoute("admin", {
  method: "post",
  path: "/apk/upload",
  operationId: "createApkFromFile",
  summary: "Create an APK record from its file",
  description:
    "Multipart part `file`: an APK, held to the checks of uploadApk (at most MAX_APK_BYTES, 415 when it is not a readable APK). The new record's versionCode, versionName, package, minSdk and signer are read from the file (a manifest without a literal versionName is named by its versionCode; 400 when its versionCode is below 1 or its versionName does not fit 1–64 characters); it starts inactive, with no release notes. " +
    "409 when an APK of the kind already has that versionCode. Make it active with POST /apk/{id}/activate.",
  tags,
  request: { query: schemas.ApkKindQuery, body: fileUploadBody("The APK") },
  errors: [...uploadErrors, "CONFLICT"],
  responses: {
    201: {
      ...resourceContent(schemas.ApkResource, "The new APK record with its file"),
      headers: locationHeader("URL of the new APK"),
    },
  },
});

export const activateApk = defineRoute("admin", {
  method: "post",
  path: "/apk/{id}/activate",
  operationId: "activateApk",
  summary: "Make an APK the active one of its kind",
  description:
    "Every other field is kept (PUT /apk/{id} replaces them all); the APK that was active is deactivated in the same transaction, and an APK already active stays so. " +
    "409 without an uploaded file, and when its package or signer differs from the active APK of the kind, unless `allowSignerChange=true`: rolling back to an earlier build is activating it.",
  tags,
  request: { params: IdParam, query: schemas.SignerChangeQuery },
  errors: ["NOT_FOUND", "CONFLICT"],
  responses: { 200: resourceContent(schemas.ApkResource, "The active APK") },
});

export const uploadApk = defineRoute("admin", {
  method: "post",
  path: "/apk/{id}/upload",
  operationId: "uploadApk",
  summary: "Upload the APK file",
  description:
    "Multipart part `file`: a zip holding `AndroidManifest.xml`, at most MAX_APK_BYTES, held to the same zip checks as a book version's archive (415). Replaces an earlier file. " +
    "The package, versionCode, minSdk and signing certificate are read from the file (415 when its manifest or signature cannot be read). " +
    "409 when its versionCode is not the record's, when the APK is active, or when its package or signer differs from the active APK of the kind (unless `allowSignerChange=true`). " +
    "An unsigned APK is recorded with `signerSha256: null`; unsigned over a signed active APK (or the reverse) is a signer change too.",
  tags,
  request: { params: IdParam, query: schemas.SignerChangeQuery, body: fileUploadBody("The APK") },
  errors: ["NOT_FOUND", ...uploadErrors, "CONFLICT"],
  responses: { 200: resourceContent(schemas.ApkResource, "The APK with its file") },
});

export const updateApk = defineRoute("admin", {
  method: "put",
  path: "/apk/{id}",
  operationId: "updateApk",
  summary: "Replace an APK's fields; make it active",
  description:
    "`active: true` deactivates the active APK of the same kind in the same transaction; 409 without an uploaded file, for a versionCode other than the uploaded file's, and when its package or signer differs from the active APK of the kind (unless `allowSignerChange=true`). " +
    "An active APK given another `kind` stays active: it is checked against, and replaces, that kind's active APK.",
  tags,
  request: { params: IdParam, query: schemas.SignerChangeQuery, body: jsonBody(schemas.ApkInput) },
  errors: ["NOT_FOUND", "CONFLICT"],
  responses: { 200: resourceContent(schemas.ApkResource, "The updated APK") },
});

export const deleteApk = defineRoute("admin", {
  method: "delete",
  path: "/apk/{id}",
  operationId: "deleteApk",
  summary: "Delete an APK and its file",
  tags,
  request: { params: IdParam },
  errors: ["NOT_FOUND"],
  responses: { 200: resourceContent(schemas.ApkResource, "The deleted APK") },
});
