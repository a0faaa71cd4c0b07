export type Role = "user" | "admin";

/** Who is calling: set by the access middleware on every non-public route. */
export interface Principal {
  userUuid: string;
  storeUserId: string;
  email: string;
  roles: Role[];
  /** The UserSession behind a Bearer token; null for HTTP Basic, which has no session. */
  sessionId: string | null;
}

const adminStoreRoles = new Set(["administrator", "shop_manager"]);

/** API.md §3: everyone is a user; admins by store role or by ADMIN_EMAILS. */
export function rolesFor(
  storeRoles: readonly string[],
  email: string,
  adminEmails: readonly string[],
): Role[] {
  const isAdmin =
    storeRoles.some((role) => adminStoreRoles.has(role)) || adminEmails.includes(email.toLowerCase());
  return isAdmin ? ["user", "admin"] : ["user"];
}

export function isAdmin(principal: Principal): boolean {
  return principal.roles.includes("admin");
}
