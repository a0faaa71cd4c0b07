// Admins beyond the store's administrators and shop managers: granted by an operator on the
// command line (`bun run admin grant|revoke|list`), kept by user uuid, never reachable over HTTP.
import type { Database } from "#db";
import type { Clock } from "../lib/clock";
import { isUuid } from "../lib/uuid";
import { deleteAdminGrant, insertAdminGrant, listAdminGrants } from "../repositories/admin-grants";
import { expireSessionChecks } from "../repositories/sessions";
import type { StoreDirectory, StoreUser } from "../store/directory";

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

export async function grantAdmin(deps: AdminGrantDeps, identifier: string): Promise<GrantChange> {
  const user = await deps.store.findUser(identifier);
  if (!user) throw new UnknownUserError(identifier);
  const changed = await insertAdminGrant(deps.db, user.uuid, deps.clock.now());
  // Live sessions re-read the account at their next request rather than within the minute.
  await expireSessionChecks(deps.db, user.uuid);
  return { user, userUuid: user.uuid, changed };
}

/** By e-mail or login, or by the uuid `list` shows (for a grant whose account the store lost). */
export async function revokeAdmin(deps: AdminGrantDeps, identifier: string): Promise<GrantChange> {
  const user = await deps.store.findUser(identifier);
  const userUuid = user?.uuid ?? (isUuid(identifier.trim()) ? identifier.trim().toLowerCase() : null);
  if (!userUuid) throw new UnknownUserError(identifier);
  const changed = await deleteAdminGrant(deps.db, userUuid);
  if (!user && !changed) throw new UnknownUserError(identifier);
  await expireSessionChecks(deps.db, userUuid);
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
