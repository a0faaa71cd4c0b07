// Turns the Authorization header into a Principal: Bearer (JWT + live session) or HTTP Basic
// (a shop password, or — on an operation with a device-token scope — a device token).
import type { Context } from "hono";
import { type DeviceTokenScope, looksLikeDeviceToken } from "../auth/device-token-format";
import type { Principal } from "../auth/principal";
import { SINGLE_LINE } from "../lib/control-characters";
import { AppError } from "../lib/problems";
import { countLogin } from "../metrics/registry";
import { principalFromDeviceToken } from "../services/device-tokens";
import { checkCredentials } from "../services/login-throttle";
import { principalFromToken } from "../services/sessions";
import { clientAddressOf } from "./client-address";
import type { AppBindings } from "./types";

const authenticationFailed = () =>
  new AppError("AUTHENTICATION_FAILED", "The credentials are invalid, expired or ended.");

/**
 * The caller, or null when the request carries no credentials; throws 401 for bad ones. `scope`:
 * the operation's device-token scope, without which a device token is refused.
 */
export async function authenticate(
  c: Context<AppBindings>,
  scope?: DeviceTokenScope,
): Promise<Principal | null> {
  const header = c.req.header("authorization");
  if (!header) return null;
  const space = header.indexOf(" ");
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (space < 0 || value === "") throw authenticationFailed();
  if (scheme === "bearer") return bearer(c, value);
  if (scheme === "basic") return basic(c, value, scope);
  throw authenticationFailed();
}

async function bearer(c: Context<AppBindings>, token: string): Promise<Principal> {
  const { db, config, clock } = c.get("deps");
  const { signer, accountCheck } = c.get("runtime");
  const principal = await principalFromToken({ db, config, signer, accountCheck }, token, clock.now());
  if (!principal) throw authenticationFailed();
  return principal;
}

async function basic(c: Context<AppBindings>, token: string, scope?: DeviceTokenScope): Promise<Principal> {
  const { store, clock } = c.get("deps");
  const { basicCache, throttle, accountCheck } = c.get("runtime");
  const now = clock.now();
  // Keyed by the token, not the header: the scheme's case and the spaces before the token are
  // free to vary, and each spelling would otherwise cost a password hash of its own.
  const cached = basicCache.get(token, now.getTime());
  if (cached) return cached;
  const decoded = decodeBasicToken(token);
  const colon = decoded?.indexOf(":") ?? -1;
  // No account's name or password holds a control character (no request string may), and Postgres
  // refuses NUL in text: such credentials fail here, before the throttle or the store sees them.
  if (decoded === null || colon < 0 || !SINGLE_LINE.test(decoded)) throw authenticationFailed();
  const login = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  // A device token is never tried as a shop password, here or anywhere: outside its scopes' operations it is a 401.
  if (looksLikeDeviceToken(password)) return deviceToken(c, token, login, password, scope);
  const user = await countedLogin(
    checkCredentials(store, throttle, {
      loginOrEmail: login,
      password,
      clientAddress: clientAddressOf(c),
      now,
    }),
  );
  if (!user) throw authenticationFailed();
  const principal: Principal = {
    userUuid: user.uuid,
    storeUserId: user.storeUserId,
    email: user.email,
    // Cached for at most 60 s (basic-cache.ts): the same bound as a session's re-check.
    roles: await accountCheck.rolesOf(user),
    sessionId: null,
  };
  basicCache.set(token, principal, now.getTime());
  return principal;
}

/**
 * A password checked over Basic is a login (README, Metrics: bookdist_logins_total), counted by
 * its result as `login`'s answers are; a credential the cache answered was counted when checked.
 */
async function countedLogin<User>(check: Promise<User | null>): Promise<User | null> {
  let user: User | null;
  try {
    user = await check;
  } catch (error) {
    if (error instanceof AppError && error.status === 429) countLogin("throttled");
    throw error;
  }
  countLogin(user === null ? "failure" : "success");
  return user;
}

/** Basic with a device token: only where the operation has a scope, and only a token with it. */
async function deviceToken(
  c: Context<AppBindings>,
  basicToken: string,
  userName: string,
  token: string,
  scope: DeviceTokenScope | undefined,
): Promise<Principal> {
  if (!scope) throw authenticationFailed();
  const { db, store, clock, jwtSecret } = c.get("deps");
  const { deviceTokenCache, accountCheck } = c.get("runtime");
  const now = clock.now();
  const cached = deviceTokenCache.get(basicToken, now.getTime());
  const principal = await principalFromDeviceToken({ db, store, jwtSecret, accountCheck }, token, {
    userName,
    scope,
    now,
    cached,
  });
  if (!principal) throw authenticationFailed();
  if (principal !== cached) deviceTokenCache.set(basicToken, principal, now.getTime());
  return principal;
}

/** Fatal: bytes that are not UTF-8 would otherwise become U+FFFD, many tokens one password. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The credentials of a Basic token, or null unless the token is the one canonical base64 spelling
 * of UTF-8 text (strict base64, canonical padding). Buffer's decoder skips characters outside the
 * alphabet, missing padding and unused trailing bits, so `dTpw!`, `dTp w`, `dTpw=` or a base64url
 * spelling would all decode alike, each missing the cache and costing a password hash. Re-encoding
 * the bytes gives the canonical spelling, in linear time; any other spelling is refused before a
 * password check.
 */
function decodeBasicToken(token: string): string | null {
  const bytes = Buffer.from(token, "base64");
  if (bytes.toString("base64") !== token) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}
