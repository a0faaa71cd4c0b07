import { and, desc, eq, isNotNull, lt, ne } from "drizzle-orm";
import type { Database } from "#db";
import { countRows, deleteById, findById, insertRow, listRows, updateById } from "../db/rows";
import { queuedWrite } from "../db/transaction";
import type { ListWindow } from "../lib/list-window";

export type ApkRow = Database["tables"]["apk"]["$inferSelect"];
export type ApkKind = ApkRow["kind"];
export type ApkFields = Pick<ApkRow, "kind" | "versionCode" | "versionName" | "releaseNotes">;
export interface ApkFileFields {
  fileSha256: string;
  fileSize: number;
  fileFilename: string | null;
  fileUploadedAt: Date;
  packageName?: string | null;
  minSdk?: number | null;
  signerSha256?: string | null;
}

export const apkSortFields = ["id", "kind", "versionCode", "createdAt"] as const;
export type ApkSortField = (typeof apkSortFields)[number];

/** A window of the APKs; `after`: the previous chunk's last APK (db/rows.ts listRows). */
export function listApks(db: Database, window: ListWindow<ApkSortField>, after?: ApkRow): Promise<ApkRow[]> {
  return listRows(db, db.tables.apk, window, undefined, after);
}

export function countApks(db: Database): Promise<number> {
  return countRows(db, db.tables.apk);
}

export function findApk(db: Database, id: number): Promise<ApkRow | undefined> {
  return findById(db, db.tables.apk, id);
}

export async function findActiveApks(db: Database): Promise<ApkRow[]> {
  const { apk } = db.tables;
  return db.orm.select().from(apk).where(eq(apk.active, true));
}

export async function findActiveApk(db: Database, kind: ApkKind): Promise<ApkRow | undefined> {
  const { apk } = db.tables;
  const [row] = await db.orm
    .select()
    .from(apk)
    .where(and(eq(apk.kind, kind), eq(apk.active, true)))
    .limit(1);
  return row;
}

export function insertApk(db: Database, fields: ApkFields, now: Date): Promise<ApkRow> {
  return insertRow(db, db.tables.apk, { ...fields, active: false, createdAt: now, updatedAt: now });
}

export function updateApk(
  db: Database,
  id: number,
  fields: Partial<ApkFields & ApkFileFields & { active: boolean }>,
  now: Date,
): Promise<ApkRow | undefined> {
  return updateById(db, db.tables.apk, id, { ...fields, updatedAt: now });
}

/** Clears `active` on every other APK of the kind (the partial unique index allows one). */
export async function deactivateOthers(
  db: Database,
  kind: ApkKind,
  keepId: number,
  now: Date,
): Promise<void> {
  const { apk } = db.tables;
  await queuedWrite(db, (tx) =>
    tx.orm
      .update(apk)
      .set({ active: false, updatedAt: now })
      .where(and(eq(apk.kind, kind), eq(apk.active, true), ne(apk.id, keepId))),
  );
}

export function deleteApk(db: Database, id: number): Promise<ApkRow | undefined> {
  return deleteById(db, db.tables.apk, id);
}

/** The APK of `kind` with the highest versionCode below `versionCode` that has a file (index apk_kind_code_uq). */
export async function findPreviousApk(
  db: Database,
  kind: ApkKind,
  versionCode: number,
): Promise<ApkRow | undefined> {
  const { apk } = db.tables;
  const [row] = await db.orm
    .select()
    .from(apk)
    .where(and(eq(apk.kind, kind), lt(apk.versionCode, versionCode), isNotNull(apk.fileSha256)))
    .orderBy(desc(apk.versionCode))
    .limit(1);
  return row;
}
