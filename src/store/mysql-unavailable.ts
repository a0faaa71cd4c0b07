// What a MySQL/MariaDB error says about the shop's database: "it cannot serve us right now" (a 503
// with Retry-After for the caller), as opposed to a bug or a misconfigured table, which stays a
// fault to see. One list for both readers of the shop: its users (wordpress.ts) and its orders
// (woocommerce.ts).

// Errors that mean "the store cannot serve us right now", as opposed to a bug or a misconfigured
// table: connection failures, timeouts, refused logins, server overload or shutdown.
const UNAVAILABLE_CODES = new Set([
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
  "ER_ACCESS_DENIED_ERROR",
  "ER_DBACCESS_DENIED_ERROR",
  "ER_BAD_DB_ERROR",
  "ER_CON_COUNT_ERROR",
  "ER_TOO_MANY_USER_CONNECTIONS",
  "ER_USER_LIMIT_REACHED",
  "ER_HOST_IS_BLOCKED",
  "ER_HOST_NOT_PRIVILEGED",
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
