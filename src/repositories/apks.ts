import { and, count, eq, ne } from "drizzle-orm";
import type { Database } from "#db";
import { orderByOf, paged } from "../db/order-by";
import { queuedWrite } from "../db/transaction";
import type { ListWindow } from "../lib/sort-and-page";

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

export function apkSortColumns({ apk }: Database["tables"]) {
  return {
    id: apk.id,
    kind: apk.kind,
    versionCode: apk.versionCode,
    createdAt: apk.createdAt,
  } satisfies Record<ApkSortField, unknown>;
}

export async function listApks(db: Database, window: ListWindow<ApkSortField>): Promise<ApkRow[]> {
  const { apk } = db.tables;
  const orderBy = orderByOf(window, apkSortColumns(db.tables), apk.id);
  return paged(
    db.orm
      .select()
      .from(apk)
      .orderBy(...orderBy)
      .$dynamic(),
    window,
  );
}

export async function countApks(db: Database): Promise<number> {
  const [row] = await db.orm.select({ n: count() }).from(db.tables.apk);
  return Number(row?.n ?? 0);
}

export async function findApk(db: Database, id: number): Promise<ApkRow | undefined> {
  const { apk } = db.tables;
  const [row] = await db.orm.select().from(apk).where(eq(apk.id, id)).limit(1);
  return row;
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

export async function insertApk(db: Database, fields: ApkFields, now: Date): Promise<ApkRow> {
  const [row] = await queuedWrite(db, () =>
    db.orm
      .insert(db.tables.apk)
      .values({ ...fields, active: false, createdAt: now, updatedAt: now })
      .returning(),
  );
  return row!;
}

export async function updateApk(
  db: Database,
  id: number,
  fields: Partial<ApkFields & ApkFileFields & { active: boolean }>,
  now: Date,
): Promise<ApkRow | undefined> {
  const { apk } = db.tables;
  const [row] = await queuedWrite(db, () =>
    db.orm
      .update(apk)
      .set({ ...fields, updatedAt: now })
      .where(eq(apk.id, id))
      .returning(),
  );
  return row;
}

/** Clears `active` on every other APK of the kind (the partial unique index allows one). */
export async function deactivateOthers(
  db: Database,
  kind: ApkKind,
  keepId: number,
  now: Date,
): Promise<void> {
  const { apk } = db.tables;
  await queuedWrite(db, () =>
    db.orm
      .update(apk)
      .set({ active: false, updatedAt: now })
      .where(and(eq(apk.kind, kind), eq(apk.active, true), ne(apk.id, keepId))),
  );
}

export async function deleteApk(db: Database, id: number): Promise<ApkRow | undefined> {
  const { apk } = db.tables;
  const [row] = await queuedWrite(db, () => db.orm.delete(apk).where(eq(apk.id, id)).returning());
  return row;
}
