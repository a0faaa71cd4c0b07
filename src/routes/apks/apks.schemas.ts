import { z } from "@hono/zod-openapi";
import { uploadedFileOf, uploadedFileSchema } from "../../http/download-docs";
import { halList, halResource } from "../../http/hal";
import { orNull, timestamps, timestampsOf, versionFields, versionInputFields } from "../../http/openapi";
import type { ApkRow } from "../../repositories/apks";

const ApkKind = z.enum(["bookapp", "launcher"]).openapi({ example: "bookapp" });

const ApkFile = uploadedFileSchema("ApkFile", {
  size: 7_340_032,
  sha256: "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9",
  filename: "bookapp-release.apk",
});

/** The version the document shows, in the answer and in the input. */
const example = { versionCode: 42, versionName: "2.3.0", releaseNotes: "Faster page turns." };

export const Apk = z
  .object({
    id: z.number().int().openapi({ example: 4 }),
    kind: ApkKind,
    ...versionFields(example),
    active: z.boolean().openapi({ example: true, description: "The APK devices get now (one per kind)" }),
    packageName: z
      .string()
      .nullable()
      .openapi({ example: "com.example.bookapp", description: "Read from the uploaded APK; null before" }),
    minSdk: z
      .number()
      .int()
      .nullable()
      .openapi({ example: 24, description: "Read from the uploaded APK; null before" }),
    signerSha256: z.string().nullable().openapi({
      example: "fb5dbd3c669af9fc236c6991e6387b7f11ff0590997f22d0f5c74ff40e04fca8",
      description:
        "SHA-256 of the signing certificate (APK Signature Scheme v3, else v2, else v1), as `apksigner verify --print-certs` reports it; null before an upload and for an unsigned APK",
    }),
    file: orNull(ApkFile),
    ...timestamps,
  })
  .openapi("Apk");

// Spread rather than .extend(): an extended registered schema renders as allOf.
export const ActiveApk = z
  .object({
    ...Apk.shape,
    // Only an APK with its file can be active (services/apks.ts), and downloadUrl names that file.
    file: ApkFile,
    downloadUrl: z.string().openapi({
      example:
        "https://books.example.com/apk/4/download?sha256=5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9",
      description:
        "Versioned URL of this APK's own file, absolute from PUBLIC_URL, else root-relative (`/apk/4/download?sha256=…`) (GET /apk/{id}/download?sha256=…, public while it is active). Unlike the fixed /apk/download/active… paths, it always means these bytes: it is cacheable as immutable, and answers 404 once the APK holds another file.",
    }),
  })
  .openapi("ActiveApk");

export const ActiveApks = z
  .object({
    bookapp: orNull(ActiveApk, "The active bookapp; null while none is"),
    launcher: orNull(ActiveApk, "The active launcher; null while none is"),
  })
  .openapi("ActiveApks", {
    description:
      "What a device needs to check for an update: versionCode, minSdk, signerSha256, file size and sha256, and the download URL",
  });

export const SignerChangeQuery = z.object({
  allowSignerChange: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      param: { name: "allowSignerChange", in: "query" },
      description:
        "`true` accepts an APK whose package or signing certificate differs from the active APK of the same kind (devices cannot update across such a change)",
      example: "true",
    }),
});

export const ApkKindQuery = z.object({
  kind: ApkKind.openapi({
    param: { name: "kind", in: "query", required: true },
    description: "Which app the file is: `bookapp` or `launcher`",
  }),
});

export const ApkDownloadQuery = z.object({
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits")
    .optional()
    .openapi({
      param: { name: "sha256", in: "query" },
      description:
        "The file's SHA-256 (as in `downloadUrl`): the answer is then immutable (`Cache-Control: …, max-age=31536000, immutable`), and 404 when the APK no longer holds that file",
      example: "5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9",
    }),
});

export const ApkInput = z
  .object({
    kind: ApkKind,
    ...versionInputFields(example, "Unique per kind"),
    active: z.boolean().optional().openapi({
      example: true,
      description:
        "true makes it the active APK of its kind (needs an uploaded file); absent leaves it as it is",
    }),
  })
  .openapi("ApkInput");

export function toApk(row: ApkRow): z.infer<typeof Apk> {
  return {
    id: row.id,
    kind: row.kind,
    versionCode: row.versionCode,
    versionName: row.versionName,
    releaseNotes: row.releaseNotes,
    active: row.active,
    packageName: row.packageName,
    minSdk: row.minSdk,
    signerSha256: row.signerSha256,
    file: uploadedFileOf(row, "file"),
    ...timestampsOf(row),
  };
}

/**
 * An active APK as GET /apk/active sends it, its downloadUrl built on `base` (baseUrlOf). Null for
 * a record without a file, which an active APK never is: without it there is nothing to download.
 */
export function toActiveApk(row: ApkRow, base: string): z.infer<typeof ActiveApk> | null {
  const apk = toApk(row);
  const { file } = apk;
  if (!file) return null;
  // Versioned by the file's hash: the URL means these bytes only, so it can be cached for good.
  // (`file` set again keeps its place: the body's fields stay in the order of Apk.)
  return { ...apk, file, downloadUrl: `${base}/apk/${row.id}/download?sha256=${file.sha256}` };
}

export const ApkResource = halResource("Apk", Apk, {
  self: (apk) => `/apk/${apk.id}`,
  download: (apk) => `/apk/${apk.id}/download`,
});

export const ApkList = halList("apks", ApkResource);
