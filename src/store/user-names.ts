// How WordPress/WooCommerce derive a new customer's login and nicename at
// registration; shared by both store drivers so their users look alike.

const LOGIN_MAX = 60;
const NICENAME_MAX = 50;

/**
 * `user_login` as WordPress's sanitize_user(strict) leaves it: accents folded, only
 * [a-z0-9 _.\-], runs of spaces collapsed (lower-cased here, as WooCommerce's are), ≤ 60.
 * WordPress would keep `@` too; a derived login never holds one here, so it can never read as
 * (and shadow) someone's e-mail address: "victim@example" + "com" must not become a login.
 */
export function sanitizeLogin(raw: string): string {
  return raw
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9 _.-]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, LOGIN_MAX)
    .trim();
}

/** A login worth having holds at least one letter or digit ("." or "-" alone are not). */
const meaningful = (login: string) => (/[a-z0-9]/.test(login) ? login : "");

/** The login a customer would get: "first.last" when both names are given, else the e-mail's local part. */
export function baseLogin(email: string, firstName: string, lastName: string): string {
  const fromNames = firstName && lastName ? meaningful(sanitizeLogin(`${firstName}.${lastName}`)) : "";
  const fromEmail = meaningful(sanitizeLogin(email.split("@")[0] ?? ""));
  return fromNames || fromEmail || "customer";
}

/** `user_nicename`: the login lower-cased, `.` and spaces → `-`, `@` dropped, at most 50 characters. */
export function nicenameOf(login: string): string {
  return login
    .toLowerCase()
    .replace(/[.\s]+/g, "-")
    .replaceAll("@", "")
    .slice(0, NICENAME_MAX);
}

/** `base`, or else `base-2`, `base-3`…, kept within `max` characters; `taken` holds lower-case names. */
export function firstFree(base: string, taken: ReadonlySet<string>, max: number): string {
  if (!taken.has(base.toLowerCase())) return base;
  for (let n = 2; ; n++) {
    const suffix = `-${n}`;
    const candidate = `${base.slice(0, max - suffix.length)}${suffix}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

export const loginMax = LOGIN_MAX;
export const nicenameMax = NICENAME_MAX;

/** WordPress stores names with &, <, > escaped. */
export function escapeHtml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

export function unescapeHtml(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

export function displayNameOf(login: string, firstName: string, lastName: string): string {
  const full = `${firstName} ${lastName}`.trim();
  return full || login;
}

/** usermeta rows of a new WooCommerce customer, in the order WordPress writes them. */
export function customerMeta(options: {
  login: string;
  firstName: string;
  lastName: string;
  prefix: string;
  capabilities: string;
  uuidKey: string;
  uuid: string;
}): Array<[key: string, value: string]> {
  return [
    ["nickname", options.login],
    ["first_name", escapeHtml(options.firstName)],
    ["last_name", escapeHtml(options.lastName)],
    ["description", ""],
    ["rich_editing", "true"],
    ["syntax_highlighting", "true"],
    ["comment_shortcuts", "false"],
    ["admin_color", "fresh"],
    ["use_ssl", "0"],
    ["show_admin_bar_front", "true"],
    ["locale", ""],
    [`${options.prefix}capabilities`, options.capabilities],
    [`${options.prefix}user_level`, "0"],
    [options.uuidKey, options.uuid],
  ];
}
