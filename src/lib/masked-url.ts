// A database or endpoint URL as an operator may see it (a CLI's first line, a hint to copy): never
// its password. URL parsing only, no pattern over the text: the URL may hold anything.

/** The URL with its password, and any query parameter naming a password, shown as `***`. */
export function maskedUrl(url: string): string {
  return rewritten(url, "***");
}

/**
 * The URL without its password, for a command an operator copies (`pg_dump '<url>'`): the
 * password comes from PGPASSWORD or ~/.pgpass instead, and `***` would be taken for one.
 */
export function urlWithoutPassword(url: string): string {
  return rewritten(url, null);
}

/** Whether the URL holds a password (in its user part or a query parameter). */
export function urlHasPassword(url: string): boolean {
  const parsed = URL.parse(url);
  return parsed !== null && rewritten(url, null) !== parsed.href;
}

/** The URL's password as written and decoded, when it has one: what a message must not show. */
export function urlPasswords(url: string): string[] {
  const parsed = URL.parse(url);
  if (!parsed?.password) return [];
  const decoded = safeDecode(parsed.password);
  return decoded === parsed.password ? [parsed.password] : [parsed.password, decoded];
}

function rewritten(url: string, replacement: string | null): string {
  const parsed = URL.parse(url);
  if (!parsed) {
    // Not shown at all: where the password ends in a malformed URL is anyone's guess.
    const colon = url.indexOf(":");
    return `${colon > 0 ? url.slice(0, Math.min(colon, 20)) : "a"} URL that does not parse (not shown)`;
  }
  if (parsed.password) parsed.password = replacement ?? "";
  if (parsed.search) {
    const kept: string[] = [];
    for (const parameter of parsed.search.slice(1).split("&")) {
      const name = parameter.split("=", 1)[0] ?? "";
      if (!safeDecode(name).toLowerCase().includes("pass")) kept.push(parameter);
      else if (replacement !== null) kept.push(`${name}=${replacement}`);
    }
    parsed.search = kept.join("&");
  }
  return parsed.href;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
