// The only text of the configuration ever written into the shop's SQL as it is (the table prefix,
// and the uuid meta key beside it): letters, digits and underscores, nothing a quote could break
// out of. config.ts refuses anything else at start, and the shop's readers check again, for
// callers that build them without config.ts.

export const SQL_IDENTIFIER = /^[A-Za-z0-9_]+$/;

export const SQL_IDENTIFIER_RULE = "may hold only letters, digits and underscores";

/** `value` as it is, or an Error naming `what` (e.g. "The store table prefix"). */
export function sqlIdentifier(value: string, what: string): string {
  if (!SQL_IDENTIFIER.test(value)) throw new Error(`${what} ${SQL_IDENTIFIER_RULE}`);
  return value;
}
