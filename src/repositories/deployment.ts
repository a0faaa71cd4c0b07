// The deployment's own id (README "Storage"): one row, made by migration 0007 and renewed for a
// copy. Blob owner markers carry it, so a cleanup deletes only its own deployment's files.
import { randomBytes } from "node:crypto";
import { eq, type SQL, sql } from "drizzle-orm";
import type { Database } from "#db";
import { queuedWrite, withTransaction } from "../db/transaction";

/** 32 lowercase hex digits, as the migration makes them. */
const DEPLOYMENT_ID = /^[0-9a-f]{32}$/;

export interface DeploymentRow {
  id: string;
  /** The blobs the database names are still to be taken over (an upgrade; see jobs/blob-cleanup.ts). */
  adoptPending: boolean;
  home: string | null;
  /** Set on a copy: its original's id, whose markers `bun run storage adopt` takes over. */
  originalId: string | null;
}

export async function readDeployment(db: Database): Promise<DeploymentRow> {
  const { deployment } = db.tables;
  const rows = await db.orm
    .select({
      id: deployment.id,
      adoptPending: deployment.adoptPending,
      home: deployment.home,
      originalId: deployment.originalId,
    })
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
 * Postgres: the cluster's system identifier and this database's oid, as migration 0007 records
 * them. A database restored with pg_restore (another database, or the same name re-created) has
 * another. SQLite: null (a copy made by `bun run admin restore` is renewed there).
 */
async function homeOf(db: Database): Promise<string | null> {
  if (db.dialect !== "postgres") return null;
  const orm = db.orm as unknown as { execute(query: SQL): Promise<Array<{ home: string }>> };
  const rows = await orm.execute(
    sql`SELECT (SELECT system_identifier::text FROM pg_control_system()) || '/' || (SELECT oid::text FROM pg_database WHERE datname = current_database()) AS home`,
  );
  return rows[0]?.home ?? null;
}

/**
 * The deployment as this server runs it. A Postgres database restored elsewhere still holds its
 * original's id: it gets one of its own here (as `bun run admin restore` gives a SQLite copy),
 * and `renewed` says so. Several instances starting at once renew it once (the update names the
 * old id), and all read the same result.
 */
export async function openDeployment(db: Database, now: Date): Promise<DeploymentRow & { renewed: boolean }> {
  const row = await readDeployment(db);
  const home = await homeOf(db);
  if (row.home === home) return { ...row, renewed: false };
  const { deployment } = db.tables;
  await queuedWrite(db, (tx) =>
    tx.orm
      .update(deployment)
      .set(
        row.home === null
          ? { home }
          : { id: newDeploymentId(), createdAt: now, adoptPending: false, home, originalId: row.id },
      )
      .where(eq(deployment.id, row.id)),
  );
  return { ...(await readDeployment(db)), renewed: row.home !== null };
}

function newDeploymentId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * Gives a restored database an id of its own, so that its cleanup never counts the objects its
 * original wrote as its own; it takes none over (no adoption) until `bun run storage adopt`.
 * Answers the new id.
 */
export async function renewDeploymentRow(
  db: Database,
  now: Date,
  /** More of the same transaction: the restore's audit event (services/audit.ts). */
  alsoInTransaction?: (tx: Database, ids: { originalId: string; id: string }) => Promise<void>,
): Promise<string> {
  const { deployment } = db.tables;
  const id = newDeploymentId();
  const home = await homeOf(db);
  const originalId = (await readDeployment(db)).id;
  await withTransaction(db, async (tx) => {
    await tx.orm.delete(deployment);
    await tx.orm.insert(deployment).values({ id, createdAt: now, adoptPending: false, home, originalId });
    await alsoInTransaction?.(tx, { originalId, id });
  });
  return id;
}
