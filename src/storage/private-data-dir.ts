// DATA_DIR holds password hashes and sessions (the SQLite file and its WAL), the generated JWT
// secret and the uploaded files: readable by this service's user only.
import { chmodSync, mkdirSync } from "node:fs";

/**
 * Every file this process creates from now on is 0600 and every folder 0700 (umask 077), and
 * DATA_DIR itself becomes 0700, also when an older version created it 0755. Returns false when
 * the folder belongs to another user and cannot be changed (the caller warns).
 */
export function makeDataDirPrivate(dataDir: string): boolean {
  process.umask(0o077);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dataDir, 0o700);
    return true;
  } catch {
    return false;
  }
}
