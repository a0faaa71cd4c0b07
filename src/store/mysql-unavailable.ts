// What a MySQL/MariaDB error says about the shop's database: "it cannot serve us right now" (a 503
// with Retry-After for the caller), as opposed to a bug or a misconfigured table, which stays a
// fault to see. One list for both readers of the shop, its users (wordpress.ts) and its orders
// (woocommerce.ts), through their one client (shop-database.ts).

/** Refusals of the login itself: the user, its password, its host or its rights on the database. */
const CREDENTIALS_REFUSED = new Set([
  "ER_ACCESS_DENIED_ERROR",
  "ER_DBACCESS_DENIED_ERROR",
  "ER_ACCESS_DENIED_NO_PASSWORD_ERROR",
  "ER_HOST_NOT_PRIVILEGED",
  "ER_MUST_CHANGE_PASSWORD_LOGIN",
  "ER_ACCOUNT_HAS_BEEN_LOCKED",
]);

/** No answer at all: the connection was never made, or broke. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "PROTOCOL_CONNECTION_LOST",
  "PROTOCOL_SEQUENCE_TIMEOUT",
]);

// Errors that mean "the store cannot serve us right now", as opposed to a bug or a misconfigured
// table: connection failures, timeouts, refused logins, server overload or shutdown.
const UNAVAILABLE_CODES = new Set([
  ...UNREACHABLE,
  ...CREDENTIALS_REFUSED,
  "ER_BAD_DB_ERROR",
  "ER_CON_COUNT_ERROR",
  "ER_TOO_MANY_USER_CONNECTIONS",
  "ER_USER_LIMIT_REACHED",
  "ER_HOST_IS_BLOCKED",
  "ER_SERVER_SHUTDOWN",
  "ER_CONNECTION_KILLED",
  "ER_QUERY_INTERRUPTED",
  "ER_LOCK_WAIT_TIMEOUT",
  "ER_LOCK_DEADLOCK",
  "ER_OPTION_PREVENTS_STATEMENT",
  "ER_NET_READ_ERROR",
  "ER_NET_READ_INTERRUPTED",
  "ER_NET_ERROR_ON_WRITE",
  "ER_NET_WRITE_INTERRUPTED",
]);

export function isUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, fatal } = error as { code?: unknown; fatal?: unknown };
  // mysql2 marks errors that killed the connection (network, protocol) as fatal.
  return fatal === true || UNAVAILABLE_CODES.has(String(code ?? ""));
}

export type StoreFailure = "credentials refused" | "cannot be reached" | "answered with an error";

/**
 * The log fields of an unavailable store, for the operator (the client's 503 is the same either
 * way): whether to fix STORE_DATABASE_URL's user and password, or the network. No error: our own
 * time limit ran out. Only the driver's code is logged, never its message (it names the user).
 */
export function storeFailureFields(error?: unknown): { reason: StoreFailure; storeCode: string } {
  if (error === undefined) return { reason: "cannot be reached", storeCode: "timeout" };
  const raw = (error as { code?: unknown } | null)?.code;
  const code = typeof raw === "string" && /^[A-Z0-9_]{1,64}$/.test(raw) ? raw : "unknown";
  const reason: StoreFailure = CREDENTIALS_REFUSED.has(code)
    ? "credentials refused"
    : UNREACHABLE.has(code) || (error as { fatal?: unknown }).fatal === true
      ? "cannot be reached"
      : "answered with an error";
  return { reason, storeCode: code };
}
