// The rules of APKs: (kind, versionCode) is unique, at most one APK of a kind is active, and
// only an APK with an uploaded file can be made active. An uploaded file must be the build the
// record describes (same versionCode), and — so that devices can install it over the current
// app — come from the same package and signer as the active APK of its kind, unless the admin
// says the change is meant.
import type { Database } from "#db";
import { violatedConstraintName } from "../db/errors";
import { withTransaction } from "../db/transaction";
import { SINGLE_LINE } from "../lib/control-characters";
import type { ListRead, ListWindow } from "../lib/list-window";
import { AppError, validationFailed } from "../lib/problems";
import * as apks from "../repositories/apks";
import type { ApkMetadata } from "../storage/apk-metadata";
import type { BlobStore } from "../storage/blob-store";
import { type AuditChanges, type AuditSource, recordChange } from "./audit";
import { assertBlobStored, recordBlob } from "./files";
import { conflictIfDuplicate, found } from "./guards";
import { pageOf } from "./page";

export type { ApkKind, ApkRow } from "../repositories/apks";

export interface ApkInputValue extends apks.ApkFields {
  active?: boolean | undefined;
}

export function listApks(
  db: Database,
  window: ListWindow<apks.ApkSortField>,
): Promise<ListRead<apks.ApkRow>> {
  return pageOf(db, window, apks.listApks, apks.countApks);
}

export function countApks(db: Database): Promise<number> {
  return apks.countApks(db);
}

/** The APK, or undefined: for a caller who decides itself what an unknown id answers. */
export function findApk(db: Database, id: number): Promise<apks.ApkRow | undefined> {
  return apks.findApk(db, id);
}

export async function getApk(db: Database, id: number): Promise<apks.ApkRow> {
  return found(await findApk(db, id), `APK ${id}`);
}

/** The active APK of each kind, or null for a kind that has none. */
export async function getActiveApks(db: Database): Promise<Record<apks.ApkKind, apks.ApkRow | null>> {
  const active = await apks.findActiveApks(db);
  const of = (kind: apks.ApkKind) => active.find((apk) => apk.kind === kind) ?? null;
  return { bookapp: of("bookapp"), launcher: of("launcher") };
}

/** The active APK of `kind`; 404 when none is. */
export async function getActiveApk(db: Database, kind: apks.ApkKind): Promise<apks.ApkRow> {
  return found(await apks.findActiveApk(db, kind), `An active ${kind}`);
}

const duplicateCode = (fields: apks.ApkFields) =>
  conflictIfDuplicate(`There is already a ${fields.kind} APK with versionCode ${fields.versionCode}.`);

const noFile = (id: number) =>
  new AppError("CONFLICT", `APK ${id} has no uploaded file and cannot be made active.`);

export async function createApk(
  db: Database,
  by: AuditSource,
  input: ApkInputValue,
  now: Date,
): Promise<apks.ApkRow> {
  // A new record has no file yet, so it cannot start out active.
  if (input.active)
    throw new AppError("CONFLICT", "A new APK has no file yet; upload one, then make it active.");
  const { active: _ignored, ...fields } = input;
  return withTransaction(db, async (tx) => {
    const apk = await apks.insertApk(tx, fields, now).catch(duplicateCode(fields));
    await recordChange(tx, by, now, "apk", "create", apk.id, null, apk);
    return apk;
  });
}

/**
 * Replaces the writable fields; `active: true` deactivates the active APK of the same kind in the
 * same transaction (409 if package or signer differ from it, unless `allowSignerChange`),
 * `active: false` deactivates this one, absent leaves it as it is.
 */
export function replaceApk(
  db: Database,
  by: AuditSource,
  id: number,
  input: ApkInputValue,
  options: { allowSignerChange: boolean },
  now: Date,
): Promise<apks.ApkRow> {
  return writeApk(db, by, id, () => input, options, now);
}

/**
 * Makes the APK the active one of its kind and keeps every other field as it is (POST
 * /apk/{id}/activate; the console's activate and roll back): 409 without an uploaded file, and
 * when its package or signer differs from the active APK of the kind, unless `allowSignerChange`.
 * The APK that was active is deactivated in the same transaction. An APK already active stays so.
 */
export function activateApk(
  db: Database,
  by: AuditSource,
  id: number,
  options: { allowSignerChange: boolean },
  now: Date,
): Promise<apks.ApkRow> {
  return writeApk(
    db,
    by,
    id,
    (current) => ({
      kind: current.kind,
      versionCode: current.versionCode,
      versionName: current.versionName,
      releaseNotes: current.releaseNotes,
      active: true,
    }),
    options,
    now,
  );
}

/**
 * The one write of an APK's fields and state: `inputOf` names them from the row as it is inside
 * the transaction, so an activation keeps exactly the fields a concurrent PUT left.
 */
function writeApk(
  db: Database,
  by: AuditSource,
  id: number,
  inputOf: (current: apks.ApkRow) => ApkInputValue,
  options: { allowSignerChange: boolean },
  now: Date,
): Promise<apks.ApkRow> {
  let written: apks.ApkFields | undefined;
  const attempt = () =>
    withTransaction(db, async (tx) => {
      const current = await getApk(tx, id);
      const { active, ...fields } = inputOf(current);
      written = fields;
      // An active APK moved to another kind stays active there: for that kind it is an activation.
      const activeAfter = active ?? current.active;
      if (activeAfter && !current.fileSha256) throw noFile(id);
      // The record describes its file; the file's versionCode cannot change.
      if (current.fileSha256 && fields.versionCode !== current.versionCode) {
        throw new AppError(
          "CONFLICT",
          `APK ${id} has an uploaded file with versionCode ${current.versionCode}; it cannot become ${fields.versionCode}.`,
        );
      }
      const previous = activeAfter ? await apks.findActiveApk(tx, fields.kind) : undefined;
      const replaced = previous && previous.id !== id ? previous : undefined;
      if (replaced && !options.allowSignerChange) assertSameLineage(replaced, current, `APK ${id}`);
      if (activeAfter) await apks.deactivateOthers(tx, fields.kind, id, now);
      const updated = (await apks.updateApk(
        tx,
        id,
        { ...fields, ...(active === undefined ? {} : { active }) },
        now,
      ))!;
      const activated = updated.active && (!current.active || current.kind !== updated.kind);
      await recordChange(
        tx,
        by,
        now,
        "apk",
        activated ? "activate" : "update",
        id,
        current,
        updated,
        activated ? activationNotes(replaced, updated) : {},
      );
      return updated;
    });
  // On Postgres two activations of one kind can race; the partial unique index lets one win and
  // the other runs again, so the later request ends up active, as if they had queued.
  return (async () => {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        const lostActivationRace = violatedConstraintName(error) === ACTIVE_INDEX;
        if (lostActivationRace && tries < 5) continue;
        if (lostActivationRace)
          throw new AppError("CONFLICT", "Another APK of this kind is being activated; try again.");
        if (written === undefined) throw error;
        return duplicateCode(written)(error);
      }
    }
  })();
}

const ACTIVE_INDEX = "apk_one_active_per_kind_uq";

/**
 * What an activation changes beyond the record: which APK of the kind devices now get, and — when
 * the one it replaces was signed otherwise (allowSignerChange) — the signer change.
 */
function activationNotes(replaced: apks.ApkRow | undefined, activated: apks.ApkRow): AuditChanges {
  const notes: AuditChanges = { activeApk: [replaced?.id ?? null, activated.id] };
  if (replaced && (replaced.signerSha256 ?? null) !== (activated.signerSha256 ?? null))
    notes.signerChange = [replaced.signerSha256 ?? null, activated.signerSha256 ?? null];
  if (replaced?.packageName && activated.packageName && replaced.packageName !== activated.packageName)
    notes.packageChange = [replaced.packageName, activated.packageName];
  return notes;
}

/** Deletes the APK; its file, no longer referenced, goes with the blob cleanup job. */
export async function removeApk(db: Database, by: AuditSource, id: number, now: Date): Promise<apks.ApkRow> {
  return withTransaction(db, async (tx) => {
    const apk = found(await apks.deleteApk(tx, id), `APK ${id}`);
    await recordChange(tx, by, now, "apk", "delete", id, apk, null);
    return apk;
  });
}

/** The bytes behind an active APK's download URL never change under the devices using it. */
export function assertFileReplaceable(apk: apks.ApkRow): void {
  if (apk.active) {
    throw new AppError(
      "CONFLICT",
      `APK ${apk.id} is active, so its file cannot be replaced; create a new APK record for the new build.`,
    );
  }
}

type Lineage = Pick<apks.ApkRow, "packageName" | "signerSha256">;

/**
 * Devices install an update only over the same package signed by the same certificate: 409 when
 * `candidate` differs from the active APK `current` in either. An unsigned APK (signer null) over
 * a signed one, or the reverse, is a signer change too: no device can update across it.
 */
function assertSameLineage(current: apks.ApkRow, candidate: Lineage, what: string): void {
  const how = "add ?allowSignerChange=true if the change is meant";
  if (current.packageName && candidate.packageName && current.packageName !== candidate.packageName) {
    throw new AppError(
      "CONFLICT",
      `${what} is package ${candidate.packageName}, but the active ${current.kind} (APK ${current.id}) is ${current.packageName}; ${how}.`,
    );
  }
  if ((current.signerSha256 ?? null) !== (candidate.signerSha256 ?? null)) {
    throw new AppError(
      "CONFLICT",
      `${what} is ${signedBy(candidate.signerSha256)}, but the active ${current.kind} (APK ${current.id}) is ${signedBy(current.signerSha256)}; devices cannot update across a signer change, ${how}.`,
    );
  }
}

const signedBy = (signer: string | null) => (signer ? `signed by certificate SHA-256 ${signer}` : "unsigned");

/** The longest versionName a record holds (ApkInput). */
const VERSION_NAME_MAX = 64;

/**
 * A new, inactive APK record made from its uploaded file (POST /apk/upload, the console's APK
 * screen): kind from the caller; versionCode, versionName, package, minSdk and signer read from
 * the file. 409 for an existing (kind, versionCode); 400 when the file's versionCode is not a
 * positive integer or its versionName does not fit a record (the manifest's own fault, said so).
 * A manifest without a literal versionName (none, or a resource reference) is named by its
 * versionCode. Activate it with activateApk.
 */
export async function createApkFromFile(
  db: Database,
  by: AuditSource,
  kind: apks.ApkKind,
  upload: ApkUpload,
  now: Date,
  blobs: BlobStore,
): Promise<apks.ApkRow> {
  const { metadata } = upload;
  if (!Number.isSafeInteger(metadata.versionCode) || metadata.versionCode < 1) {
    throw validationFailed(
      "file",
      `the APK's manifest has versionCode ${metadata.versionCode}; a record needs a versionCode of at least 1`,
    );
  }
  const versionName = (metadata.versionName ?? "").trim() || String(metadata.versionCode);
  if (versionName.length > VERSION_NAME_MAX || !SINGLE_LINE.test(versionName)) {
    throw validationFailed(
      "file",
      `the APK's versionName must be 1–${VERSION_NAME_MAX} characters without control characters`,
    );
  }
  await assertBlobStored(blobs, upload.sha256);
  const fields: apks.ApkFields = { kind, versionCode: metadata.versionCode, versionName, releaseNotes: null };
  return withTransaction(db, async (tx) => {
    await recordBlob(tx, upload.sha256, upload.size, now);
    const apk = await apks.insertApk(tx, fields, now).catch(duplicateCode(fields));
    const updated = (await apks.updateApk(
      tx,
      apk.id,
      {
        fileSha256: upload.sha256,
        fileSize: upload.size,
        fileFilename: upload.filename,
        fileUploadedAt: now,
        packageName: metadata.packageName,
        minSdk: metadata.minSdk,
        signerSha256: metadata.signerSha256,
      },
      now,
    ))!;
    await recordChange(tx, by, now, "apk", "upload", apk.id, null, updated);
    return updated;
  });
}

export interface ApkUpload {
  sha256: string;
  size: number;
  filename: string | null;
  metadata: ApkMetadata;
}

/**
 * Points the APK at its uploaded file and records what the file says about itself. 409 when the
 * file's versionCode is not the record's, when the APK is active (the bytes behind an active
 * APK's download URL never change under devices), or when package or signer differ from the
 * active APK of the kind without `allowSignerChange` (see assertSameLineage).
 */
export async function attachApkFile(
  db: Database,
  by: AuditSource,
  id: number,
  upload: ApkUpload,
  options: { allowSignerChange: boolean },
  now: Date,
  blobs: BlobStore,
): Promise<apks.ApkRow> {
  const { metadata } = upload;
  await assertBlobStored(blobs, upload.sha256);
  return withTransaction(db, async (tx) => {
    const apk = await getApk(tx, id);
    assertFileReplaceable(apk);
    if (metadata.versionCode !== apk.versionCode) {
      throw new AppError(
        "CONFLICT",
        `The uploaded APK has versionCode ${metadata.versionCode}, but APK ${id} is versionCode ${apk.versionCode}.`,
      );
    }
    if (!options.allowSignerChange) {
      const current = await apks.findActiveApk(tx, apk.kind);
      if (current && current.id !== apk.id) assertSameLineage(current, metadata, "The uploaded APK");
    }
    await recordBlob(tx, upload.sha256, upload.size, now);
    const updated = await apks.updateApk(
      tx,
      id,
      {
        fileSha256: upload.sha256,
        fileSize: upload.size,
        fileFilename: upload.filename,
        fileUploadedAt: now,
        packageName: metadata.packageName,
        minSdk: metadata.minSdk,
        signerSha256: metadata.signerSha256,
      },
      now,
    );
    await recordChange(tx, by, now, "apk", "upload", id, apk, updated!);
    return updated!;
  });
}

/**
 * What a roll back activates (the console's APK screen): the APK of `kind` with the highest
 * versionCode below the active one's that has a file; undefined when there is none.
 */
export async function previousApk(db: Database, kind: apks.ApkKind): Promise<apks.ApkRow | undefined> {
  const active = await apks.findActiveApk(db, kind);
  return active ? apks.findPreviousApk(db, kind, active.versionCode) : undefined;
}
