// What a CLI (`bun run admin|storage|db …`) touches, said on its first line: the database, the
// store of users and the storage of files this environment (and `.env`, which Bun loads for
// `bun run` as it does for the server) names. An operator who ran it with another environment
// than the server's sees it before anything else; an error names where it looked with the same
// words. No password, secret key or token is ever part of it (lib/masked-url.ts).
import { resolve } from "node:path";
import type { Config } from "./config";
import { isPostgresUrl, sqlitePathFromUrl } from "./db/client";
import { forTerminal } from "./lib/control-characters";
import { maskedUrl, urlHasPassword, urlPasswords, urlWithoutPassword } from "./lib/masked-url";

/**
 * One line: `database: SQLite /srv/bookdist/data/bookdist.sqlite; users: the embedded store;
 * storage: local /srv/bookdist/data/blobs`, or `database: Postgres postgres://bookdist:***@db:5432/bookdist;
 * users: the WordPress store at mysql://shop:***@10.0.0.5:3306/shop (prefix wp_); storage: bucket
 * "books" at https://s3.example.com (S3, prefix "bookdist/")`. Control characters are shown escaped.
 */
export function describeTargets(config: Config): string {
  const users =
    config.storeDriver === "embedded" ? "the embedded store (in that database)" : describeStore(config);
  return forTerminal(
    `database: ${describeDatabase(config.databaseUrl)}; users: ${users}; storage: ${describeStorage(config)}`,
  );
}

/** `SQLite <absolute path>` or `Postgres <URL, password masked>`. */
export function describeDatabase(databaseUrl: string): string {
  if (isPostgresUrl(databaseUrl)) return `Postgres ${maskedUrl(databaseUrl)}`;
  return `SQLite ${databaseLocation(databaseUrl)}`;
}

/** Where users are looked up: `the embedded store at <database>` or `the WordPress store at <URL> (prefix wp_)`. */
export function describeStore(config: Config): string {
  if (config.storeDriver === "embedded")
    return `the embedded store at ${databaseLocation(config.databaseUrl)}`;
  const url = config.storeDatabaseUrl ? maskedUrl(config.storeDatabaseUrl) : "(no STORE_DATABASE_URL)";
  return `the WordPress store at ${url} (prefix ${config.storeTablePrefix})`;
}

/** `local <DATA_DIR/blobs>` or `bucket "<name>" at <endpoint> (S3, prefix "<prefix>")`. */
export function describeStorage(config: Config): string {
  const storage = config.storage;
  if (storage.driver === "local") return `local ${resolve(config.dataDir, "blobs")}`;
  const where = storage.endpoint ? maskedUrl(storage.endpoint) : `AWS region ${storage.region}`;
  const prefix = storage.prefix === "" ? "no prefix" : `prefix "${storage.prefix}"`;
  return `bucket "${storage.bucket}" at ${where} (S3, ${prefix})`;
}

/**
 * A message from a driver or the system with every secret of the configuration replaced by `***`
 * (the database's and the store's passwords, the S3 secret key, the JWT and webhook secrets), in
 * case one quotes a URL or a setting.
 */
export function withoutSecrets(message: string, config: Config): string {
  const secrets = [
    ...urlPasswords(config.databaseUrl),
    ...(config.storeDatabaseUrl ? urlPasswords(config.storeDatabaseUrl) : []),
    config.storage.driver === "s3" ? config.storage.secretAccessKey : undefined,
    config.jwtSecret,
    config.shopWebhookSecret,
  ];
  let safe = message;
  for (const secret of secrets) if (secret) safe = safe.split(secret).join("***");
  return safe;
}

/**
 * The `pg_dump` command for the Postgres database `databaseUrl` names, to copy and run: the URL
 * without its password, single-quoted for a POSIX shell, and where the password goes instead.
 */
export function pgDumpCommand(databaseUrl: string): string {
  const command = `pg_dump -Fc -f bookdist.dump ${shellQuoted(urlWithoutPassword(databaseUrl))}`;
  return urlHasPassword(databaseUrl)
    ? `${command} (its password is not shown: give it in PGPASSWORD or ~/.pgpass)`
    : command;
}

/** The `pg_restore` command into the Postgres database `databaseUrl` names, as pgDumpCommand. */
export function pgRestoreCommand(databaseUrl: string): string {
  const command = `pg_restore -d ${shellQuoted(urlWithoutPassword(databaseUrl))} bookdist.dump`;
  return urlHasPassword(databaseUrl)
    ? `${command} (its password is not shown: give it in PGPASSWORD or ~/.pgpass)`
    : command;
}

/** The SQLite file, absolute (as the server opens it from its working folder), or the masked URL. */
function databaseLocation(databaseUrl: string): string {
  if (isPostgresUrl(databaseUrl)) return maskedUrl(databaseUrl);
  try {
    return resolve(sqlitePathFromUrl(databaseUrl));
  } catch {
    return "(DATABASE_URL names no SQLite file)";
  }
}

function shellQuoted(text: string): string {
  return `'${text.split("'").join(`'\\''`)}'`;
}
