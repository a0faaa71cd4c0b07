// How the cluster test makes its admin: as an operator does, with `bun run admin grant <email>`
// against the shared database, after the account registered and before its first login (so its
// session reads the role fresh). Nothing else in the cluster test knows how admins are made.
import { grantAdminWithCli } from "../helpers/admin-cli";

/** Grants admin to the registered account `email`. */
export async function grantAdmin(
  email: string,
  env: { databaseUrl: string; dataDir: string },
): Promise<void> {
  await grantAdminWithCli(email, { DATABASE_URL: env.databaseUrl, DATA_DIR: env.dataDir });
}
