import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";
import type { Logger } from "../lib/logger";

/**
 * JWT_SECRET, or else a secret generated once and kept in DATA_DIR (mode 0600), so that tokens
 * survive restarts without the operator having to invent one.
 */
export function resolveJwtSecret(config: Config, logger: Logger): string {
  if (config.jwtSecret) return config.jwtSecret;
  const path = join(config.dataDir, "jwt-secret");
  if (!existsSync(path)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(path, randomBytes(48).toString("base64url"), { mode: 0o600, flag: "wx" });
    logger.warn(
      "JWT_SECRET is not set: generated one in DATA_DIR; set JWT_SECRET when several instances share sessions",
    );
  }
  chmodSync(path, 0o600);
  return readFileSync(path, "utf8").trim();
}
