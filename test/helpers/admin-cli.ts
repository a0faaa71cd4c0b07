// `bun run admin …` exactly as an operator types it, against a server's DATA_DIR and database.
import { projectRoot } from "./spawn-server";

export interface AdminCliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `bun run admin <args>` with the server's environment (DATA_DIR, DATABASE_URL, store). */
export async function runAdminCli(args: string[], env: Record<string, string>): Promise<AdminCliResult> {
  const child = Bun.spawn(["bun", "run", "admin", ...args], {
    cwd: projectRoot,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      TZ: "UTC",
      ...env,
    },
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
