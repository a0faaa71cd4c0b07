// What the shared database and the shared DATA_DIR hold after a crash, read straight from them:
// blob rows against files, records against blob rows, activations against their codes, and the
// temp files uploads leave.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";

export interface StorageState {
  blobRows: Set<string>;
  referenced: Set<string>;
  files: Set<string>;
  temp: { name: string; mtimeMs: number }[];
  /** Codes whose activation_count is not the number of activations made from them. */
  miscountedCodes: number;
  /** Codes with more activations than maxActivations. */
  overusedCodes: number;
}

export async function readStorage(databaseUrl: string, dataDir: string): Promise<StorageState> {
  const sql = new SQL(databaseUrl, { max: 1 });
  try {
    const blobRows = new Set<string>(
      (await sql`SELECT sha256 FROM blob`).map((row: { sha256: string }) => row.sha256),
    );
    const referenced = new Set<string>(
      (
        await sql`
          SELECT cover_sha256 AS sha256 FROM book WHERE cover_sha256 IS NOT NULL
          UNION SELECT archive_sha256 FROM book_version WHERE archive_sha256 IS NOT NULL
          UNION SELECT file_sha256 FROM apk WHERE file_sha256 IS NOT NULL`
      ).map((row: { sha256: string }) => row.sha256),
    );
    const [codes] = await sql`
      SELECT count(*) FILTER (WHERE q.activation_count <> coalesce(a.n, 0))::int AS miscounted,
             count(*) FILTER (WHERE coalesce(a.n, 0) > q.max_activations)::int AS overused
      FROM activation_qr_code q
      LEFT JOIN (SELECT qr_code_id, count(*)::int AS n FROM activation GROUP BY qr_code_id) a ON a.qr_code_id = q.id`;
    return {
      blobRows,
      referenced,
      files: publishedFiles(dataDir),
      temp: tempFiles(dataDir),
      miscountedCodes: codes.miscounted,
      overusedCodes: codes.overused,
    };
  } finally {
    await sql.close();
  }
}

/**
 * Blob files under the shard folders, by name (their sha256). The owner markers beside them
 * (`<sha256>.owner-<deployment id>`, README "Storage") are not blobs and are left out.
 */
function publishedFiles(dataDir: string): Set<string> {
  const root = join(dataDir, "blobs");
  const files = new Set<string>();
  for (const shard of readdirSync(root).filter((name) => /^[0-9a-f]{2}$/.test(name)))
    for (const name of readdirSync(join(root, shard))) if (/^[0-9a-f]{64}$/.test(name)) files.add(name);
  return files;
}

export function tempFiles(dataDir: string): { name: string; mtimeMs: number }[] {
  const dir = join(dataDir, "blobs", "tmp");
  const names = (() => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  })();
  return names.flatMap((name) => {
    try {
      return [{ name, mtimeMs: statSync(join(dir, name)).mtimeMs }];
    } catch {
      return []; // removed meanwhile
    }
  });
}
