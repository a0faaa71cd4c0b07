// Admins beyond the store's administrators and shop managers: granted by an operator on the
// command line (`bun run admin grant|revoke|list`), kept by user uuid, never reachable over HTTP.
import type { Database } from "#db";
import { withTransaction } from "../db/transaction";
import type { Clock } from "../lib/clock";
import { isUuid } from "../lib/uuid";
import { deleteAdminGrant, insertAdminGrant, listAdminGrants } from "../repositories/admin-grants";
import { expireSessionChecks } from "../repositories/sessions";
import type { StoreDirectory, StoreUser } from "../store/directory";
import { type AuditSource, recordAudit } from "./audit";

export interface AdminGrantDeps {
  db: Database;
  store: StoreDirectory;
  clock: Clock;
}

export class UnknownUserError extends Error {
  constructor(readonly identifier: string) {
    super(`no user "${identifier}" in the store`);
    this.name = "UnknownUserError";
  }
}

export interface GrantChange {
  /** The store's user; null when a grant was revoked by uuid for an account the store no longer has. */
  user: StoreUser | null;
  userUuid: string;
  /** False when there was nothing to do (already granted, or no grant to revoke). */
  changed: boolean;
}

/** An admin grant made or taken back, as the audit log names it (only when something changed). */
function recordGrantChange(tx: Database, by: AuditSource, now: Date, userUuid: string, admin: boolean) {
  return recordAudit(tx, {
    by,
    at: now,
    action: admin ? "admin.grant" : "admin.revoke",
    target: { type: "user", id: userUuid },
    changes: { admin: [!admin, admin] },
  });
}

/** `by`: who grants (the operator's command line: services/audit.ts cliSource). */
export async function grantAdmin(
  deps: AdminGrantDeps,
  by: AuditSource,
  identifier: string,
): Promise<GrantChange> {
  const user = await deps.store.findUser(identifier);
  if (!user) throw new UnknownUserError(identifier);
  const now = deps.clock.now();
  const changed = await withTransaction(deps.db, async (tx) => {
    const made = await insertAdminGrant(tx, user.uuid, now);
    // Live sessions re-read the account at their next request rather than within the minute.
    await expireSessionChecks(tx, user.uuid);
    if (made) await recordGrantChange(tx, by, now, user.uuid, true);
    return made;
  });
  return { user, userUuid: user.uuid, changed };
}

/** By e-mail or login, or by the uuid `list` shows (for a grant whose account the store lost). */
export async function revokeAdmin(
  deps: AdminGrantDeps,
  by: AuditSource,
  identifier: string,
): Promise<GrantChange> {
  const user = await deps.store.findUser(identifier);
  const userUuid = user?.uuid ?? (isUuid(identifier.trim()) ? identifier.trim().toLowerCase() : null);
  if (!userUuid) throw new UnknownUserError(identifier);
  const now = deps.clock.now();
  const changed = await withTransaction(deps.db, async (tx) => {
    const removed = await deleteAdminGrant(tx, userUuid);
    if (!user && !removed) throw new UnknownUserError(identifier);
    await expireSessionChecks(tx, userUuid);
    if (removed) await recordGrantChange(tx, by, now, userUuid, false);
    return removed;
  });
  return { user, userUuid, changed };
}

export async function listAdmins(
  deps: AdminGrantDeps,
): Promise<Array<{ userUuid: string; grantedAt: Date; user: StoreUser | null }>> {
  const grants = await listAdminGrants(deps.db);
  const listed = [];
  for (const grant of grants) listed.push({ ...grant, user: await deps.store.findByUuid(grant.userUuid) });
  return listed;
}
