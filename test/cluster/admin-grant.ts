// How the cluster test makes its admin. MERGE: today the only way is ADMIN_EMAILS in every
// instance's environment; once `bun run admin grant <email>` exists (issue 13), switch to it:
//   adminEnvironment = () => ({})
//   grantAdmin = run ["bun", "run", "admin", "grant", email] with DATABASE_URL (and DATA_DIR) set,
//   expecting exit code 0 — before the admin's first login, so its session reads the role fresh.
// Nothing else in the cluster test knows how admins are made.

/** Environment every instance starts with so that `email` is an admin. */
export function adminEnvironment(email: string): Record<string, string> {
  return { ADMIN_EMAILS: email };
}

/** Grants admin to the registered account `email`; with ADMIN_EMAILS there is nothing to do. */
export async function grantAdmin(
  _email: string,
  _env: { databaseUrl: string; dataDir: string },
): Promise<void> {}
