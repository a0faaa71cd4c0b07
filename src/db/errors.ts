// Recognises constraint violations and lost connections from either driver, so that the one
// error mapper can answer 409/400/503 without leaking the driver's message.

type ConstraintKind = "unique" | "foreign-key" | "check" | "not-null";

function* causes(error: unknown): Generator<Record<string, unknown>> {
  let current = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    yield current as Record<string, unknown>;
    current = (current as { cause?: unknown }).cause;
  }
}

export function constraintViolation(error: unknown): ConstraintKind | null {
  for (const e of causes(error)) {
    const code = String(e.code ?? "");
    const errno = String(e.errno ?? "");
    // bun:sqlite: SQLITE_CONSTRAINT_UNIQUE, …; Bun SQL (Postgres): SQLSTATE in `errno`, e.g. 23505.
    if (code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || errno === "23505")
      return "unique";
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY" || errno === "23503") return "foreign-key";
    if (code === "SQLITE_CONSTRAINT_CHECK" || errno === "23514") return "check";
    if (code === "SQLITE_CONSTRAINT_NOTNULL" || errno === "23502") return "not-null";
  }
  return null;
}

export const isUniqueViolation = (error: unknown) => constraintViolation(error) === "unique";

/** The name of the violated constraint or index, where the driver tells it (Postgres does). */
export function violatedConstraintName(error: unknown): string | null {
  for (const e of causes(error)) {
    if (typeof e.constraint === "string") return e.constraint;
    const named = /constraint "([^"]+)"/.exec(String(e.message ?? ""));
    if (named) return named[1] ?? null;
  }
  return null;
}

const unavailableCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_CANTOPEN",
  "PROTOCOL_CONNECTION_LOST",
  "ER_CON_COUNT_ERROR",
]);

/** True when the database (or store) could not be reached or is shutting down: answer 503. */
export function isUnavailable(error: unknown): boolean {
  for (const e of causes(error)) {
    const code = String(e.code ?? "");
    if (unavailableCodes.has(code) || code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))
      return true;
    // Postgres: 53300 too many connections (server or role limit), 57P01 admin shutdown,
    // 57P03 cannot connect now, 08xxx connection exceptions.
    const errno = String(e.errno ?? "");
    if (errno === "53300" || errno === "57P01" || errno === "57P03" || errno.startsWith("08")) return true;
  }
  return false;
}

/** True when the data volume or the database has no room left: answer 507 and raise the alarm. */
export function isStorageFull(error: unknown): boolean {
  for (const e of causes(error)) {
    const code = String(e.code ?? "");
    // ENOSPC/EDQUOT from the file system, SQLITE_FULL from bun:sqlite; Postgres 53100 disk_full.
    if (code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL") return true;
    if (String(e.errno ?? "") === "53100") return true;
  }
  return false;
}
