// What a CLI command touches, for its first line: the database, the store and the storage, with
// every password masked. (Minimal version; the issue-38 CLI work keeps the full one.)
import type { Config } from "./config";

/** `url` with its password (if any) replaced by `***`. */
function masked(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "") return url;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}

export function describeTargets(config: Config): string {
  const store =
    config.storeDriver === "wordpress"
      ? `the WordPress store at ${masked(config.storeDatabaseUrl ?? "")}`
      : "the embedded store";
  const storage =
    config.storage.driver === "s3" ? `bucket ${config.storage.bucket}` : `files in ${config.dataDir}`;
  return `database ${masked(config.databaseUrl)}, ${store}, ${storage}`;
}
