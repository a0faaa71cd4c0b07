// The deployment's own id (README "Storage"): one row, made by migration 0006 and renewed by a
// restore. Blob owner markers carry it, so a cleanup deletes only its own deployment's files.
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite, withTransaction } from "../db/transaction";

/** 32 lowercase hex digits, as the migration makes them. */
export const DEPLOYMENT_ID = /^[0-9a-f]{32}$/;

export interface DeploymentRow {
  id: string;
  /** The blobs the database names are still to be taken over (an upgrade; see jobs/blob-cleanup.ts). */
  adoptPending: boolean;
}

export async function readDeployment(db: Database): Promise<DeploymentRow> {
  const { deployment } = db.tables;
  const rows = await db.orm
    .select({ id: deployment.id, adoptPending: deployment.adoptPending })
    .from(deployment);
  // The migration writes exactly one row and nothing deletes it: anything else is a damaged database.
  if (rows.length !== 1 || !DEPLOYMENT_ID.test(rows[0]?.id ?? ""))
    throw new Error(`the database holds ${rows.length} deployment rows, not one`);
  return rows[0] as DeploymentRow;
}

/** The takeover of the blobs the database names is done (by the cleanup or `storage adopt`). */
export async function markAdopted(db: Database, id: string): Promise<void> {
  const { deployment } = db.tables;
  await queuedWrite(db, (tx) =>
    tx.orm.update(deployment).set({ adoptPending: false }).where(eq(deployment.id, id)),
  );
}

/**
 * Gives a restored database an id of its own, so that its cleanup never counts the objects its
 * original wrote as its own; it takes none over (no adoption) until `bun run storage adopt`.
 * Answers the new id.
 */
export async function renewDeploymentRow(db: Database, now: Date): Promise<string> {
  const { deployment } = db.tables;
  const id = randomBytes(16).toString("hex");
  await withTransaction(db, async (tx) => {
    await tx.orm.delete(deployment);
    await tx.orm.insert(deployment).values({ id, createdAt: now, adoptPending: false });
  });
  return id;
}
