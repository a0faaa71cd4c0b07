// `bun run db copy --to <postgres url>`: copies the SQLite database this configuration points at
// (DATABASE_URL, or DATA_DIR's bookdist.sqlite, exactly as the server resolves it) into an empty
// Postgres database (db/copy-to-postgres.ts; README "Moving to Postgres"). Stop the server first.
import { describeTargets } from "./cli-targets";
import { loadConfigOrExit } from "./config";
import { isPostgresUrl, sqlitePathFromUrl } from "./db/client";
import { CopyError, copyToPostgres } from "./db/copy-to-postgres";
import { maskedUrl } from "./lib/masked-url";

const USAGE = "usage: bun run db copy --to <postgres url>";

const [command, flag, targetUrl, ...rest] = process.argv.slice(2);
if (command !== "copy" || flag !== "--to" || !targetUrl || rest.length > 0) {
  console.error(USAGE);
  process.exit(2);
}

const config = loadConfigOrExit();
console.error(`bookdist db copy: from ${describeTargets(config)}; to ${maskedUrl(targetUrl)}`);
if (isPostgresUrl(config.databaseUrl)) {
  console.error("bookdist db: DATABASE_URL already names Postgres; the copy reads a SQLite deployment");
  process.exit(1);
}
if (!isPostgresUrl(targetUrl)) {
  console.error("bookdist db: --to must be a postgres:// URL");
  process.exit(2);
}

const started = performance.now();
try {
  const report = await copyToPostgres({
    sqlitePath: sqlitePathFromUrl(config.databaseUrl),
    targetUrl,
    progress: (line) => console.error(`copying ${line}`),
  });
  const rows = report.copied.reduce((sum, table) => sum + table.rows, 0);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(
    `verified: ${report.copied.length} tables, ${rows} rows, row counts equal to the source; counters equal to the real counts (${report.counters.map((c) => `${c.table} ${c.n}`).join(", ")}); ${seconds} s`,
  );
  console.error(`done: set DATABASE_URL to the target and start the server (blobs stay in place)`);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`bookdist db: ${error instanceof CopyError ? message : `copy failed: ${message}`}`);
  process.exit(1);
}
