// The rules of APKs: (kind, versionCode) is unique, at most one APK of a kind is active, and
// only an APK with an uploaded file can be made active.
import type { Database } from "#db";
import { isUniqueViolation, violatedConstraintName } from "../db/errors";
import { withTransaction } from "../db/transaction";
import { AppError, notFound } from "../lib/problems";
import * as apks from "../repositories/apks";

export interface ApkInputValue extends apks.ApkFields {
  active?: boolean | undefined;
}

export async function getApk(db: Database, id: number): Promise<apks.ApkRow> {
  const apk = await apks.findApk(db, id);
  if (!apk) throw notFound(`APK ${id}`);
  return apk;
}

function duplicateCode(fields: apks.ApkFields) {
  return (error: unknown): never => {
    if (isUniqueViolation(error)) {
      throw new AppError(
        "CONFLICT",
        `There is already a ${fields.kind} APK with versionCode ${fields.versionCode}.`,
      );
    }
    throw error;
  };
}

const noFile = (id: number) =>
  new AppError("CONFLICT", `APK ${id} has no uploaded file and cannot be made active.`);

export async function createApk(db: Database, input: ApkInputValue, now: Date): Promise<apks.ApkRow> {
  // A new record has no file yet, so it cannot start out active.
  if (input.active)
    throw new AppError("CONFLICT", "A new APK has no file yet; upload one, then make it active.");
  const { active: _ignored, ...fields } = input;
  return apks.insertApk(db, fields, now).catch(duplicateCode(fields));
}

/**
 * Replaces the writable fields; `active: true` deactivates the active APK of the same kind in the
 * same transaction, `active: false` deactivates this one, absent leaves it as it is.
 */
export async function replaceApk(
  db: Database,
  id: number,
  input: ApkInputValue,
  now: Date,
): Promise<apks.ApkRow> {
  const { active, ...fields } = input;
  const attempt = () =>
    withTransaction(db, async (tx) => {
      const current = await apks.findApk(tx, id);
      if (!current) throw notFound(`APK ${id}`);
      if (active && !current.fileSha256) throw noFile(id);
      if (active) await apks.deactivateOthers(tx, fields.kind, id, now);
      const updated = await apks.updateApk(
        tx,
        id,
        { ...fields, ...(active === undefined ? {} : { active }) },
        now,
      );
      return updated!;
    });
  // On Postgres two activations of one kind can race; the partial unique index lets one win and
  // the other runs again, so the later request ends up active, as if they had queued.
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const lostActivationRace = violatedConstraintName(error) === ACTIVE_INDEX;
      if (lostActivationRace && tries < 5) continue;
      if (lostActivationRace)
        throw new AppError("CONFLICT", "Another APK of this kind is being activated; try again.");
      return duplicateCode(fields)(error);
    }
  }
}

const ACTIVE_INDEX = "apk_one_active_per_kind_uq";

/** Deletes the APK; its file, no longer referenced, goes with the blob cleanup job. */
export async function removeApk(db: Database, id: number): Promise<apks.ApkRow> {
  const deleted = await apks.deleteApk(db, id);
  if (!deleted) throw notFound(`APK ${id}`);
  return deleted;
}
