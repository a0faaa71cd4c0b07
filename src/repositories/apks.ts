import { and, count, eq, ne, type SQL } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite } from "../db/transaction";

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

export async function listApks(
  db: Database,
  options: { orderBy: SQL[]; limit?: number; offset?: number },
): Promise<ApkRow[]> {
  const query = db.orm
    .select()
    .from(db.tables.apk)
    .orderBy(...options.orderBy)
    .$dynamic();
  if (options.limit !== undefined) query.limit(options.limit).offset(options.offset ?? 0);
  return query;
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
