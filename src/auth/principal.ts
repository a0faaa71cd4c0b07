import { forbidden } from "../lib/problems";

export type Role = "user" | "admin";

/** Who is calling: set by the access middleware on every non-public route. */
export interface Principal {
  userUuid: string;
  storeUserId: string;
  email: string;
  roles: Role[];
  /** The id of the UserSession behind a Bearer token (its `sid`); null for HTTP Basic, which has no session. */
  sessionId: string | null;
  /**
   * The device token (app password) a Basic caller used, on an operation of its scope (README
   * "Reading apps"); absent for a session or a shop password.
   */
  deviceTokenId?: number;
}

const adminStoreRoles = new Set(["administrator", "shop_manager"]);

/**
 * Everyone is a user; admins are the store's administrators and shop managers and the
 * accounts an operator granted on the command line (`bun run admin grant`). No e-mail address
 * makes an admin: an address can be registered, or changed to, by whoever gets there first.
 */
export function rolesFor(storeRoles: readonly string[], granted: boolean): Role[] {
  return rolesOf(granted || storeRoles.some((role) => adminStoreRoles.has(role)));
}

export function rolesOf(isAdmin: boolean): Role[] {
  return isAdmin ? ["user", "admin"] : ["user"];
}

export function isAdmin(principal: Principal): boolean {
  return principal.roles.includes("admin");
}

/** The `owner` level: the user the record or path names, or an admin (403 otherwise). */
export function assertOwner(principal: Principal, userUuid: string): void {
  if (!isAdmin(principal) && principal.userUuid !== userUuid.toLowerCase()) {
    throw forbidden("This belongs to another user.");
  }
}
