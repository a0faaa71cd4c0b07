// `bun run admin …` exactly as an operator types it, against a server's DATA_DIR and database.
import { childEnv } from "./child-env";
import { projectRoot } from "./spawn-server";

export interface AdminCliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `bun run admin <args>` with the server's environment (DATA_DIR, DATABASE_URL, store). */
export function runAdminCli(args: string[], env: Record<string, string>): Promise<AdminCliResult> {
  return runCli("admin", args, env);
}

/** Runs `bun run storage <args>` with the server's environment, as runAdminCli. */
export function runStorageCli(args: string[], env: Record<string, string>): Promise<AdminCliResult> {
  return runCli("storage", args, env);
}

async function runCli(
  script: "admin" | "storage",
  args: string[],
  env: Record<string, string>,
): Promise<AdminCliResult> {
  const child = Bun.spawn(["bun", "run", script, ...args], {
    cwd: projectRoot,
    // Only the server's data (`env`): not the `.env` beside the project, not the shell's service
    // variables (test/helpers/child-env.ts), so a grant reaches the test's database and no other.
    env: childEnv(env),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

/** `bun run admin grant <identifier>`, which must succeed. */
export async function grantAdminWithCli(identifier: string, env: Record<string, string>): Promise<void> {
  const result = await runAdminCli(["grant", identifier], env);
  if (result.exitCode !== 0)
    throw new Error(`bun run admin grant ${identifier}: ${result.exitCode} ${result.stderr}`);
}

/**
 * What the fault tests start from on a real server: an admin (registered over HTTP, granted with
 * the CLI, as an operator does) and one book. The session re-reads its roles at its next request
 * after the grant, so the token from registration is an admin's. `cliEnv` is what `bun run admin`
 * needs to reach the server's data: its DATA_DIR, and its DATABASE_URL on Postgres
 * (RealServer.dataEnv).
 */
export async function adminWithBook(
  server: { url: string },
  cliEnv: Record<string, string>,
  account: { email: string; password: string; bookTitle: string },
): Promise<{ token: string; bookId: number }> {
  const registered = await fetch(`${server.url}/authentication/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const { token } = (await registered.json()) as { token: string };
  await grantAdminWithCli(account.email, cliEnv);
  const book = await fetch(`${server.url}/book`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ title: account.bookTitle }),
  });
  if (book.status !== 201) throw new Error(`create book: ${book.status} ${await book.text()}`);
  return { token, bookId: ((await book.json()) as { id: number }).id };
}
