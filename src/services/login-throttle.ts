// Checking a password under the login limits of DESIGN.md: failures count per (client address,
// account) and per client address, the account being the store user the typed name resolves to.

import { throttleBucketOf } from "../lib/ip-address";
import type { StoreDirectory, StoreUser } from "../store/directory";
import { type Limits, type Throttle, throttleRules } from "./throttle";

export interface LoginAttempt {
  loginOrEmail: string;
  password: string;
  clientAddress: string;
  now: Date;
}

/**
 * The store user for these credentials, or null (a failure, recorded). 429 before any password is
 * hashed when the account or the address has used up its failures. Every spelling that resolves to
 * one user (login or e-mail, any case or accents the store's collation ignores) counts as that
 * user; a name that resolves to nobody counts under its normalised form.
 */
export async function checkCredentials(
  store: StoreDirectory,
  throttle: Throttle,
  attempt: LoginAttempt,
): Promise<StoreUser | null> {
  const client = throttleBucketOf(attempt.clientAddress);
  const perAddress = [throttleRules.loginFailuresPerAddress, client] as const;
  let limits: Limits = [perAddress];
  const user = await store.authenticate(attempt.loginOrEmail, attempt.password, async (storeUserId) => {
    const account =
      storeUserId === null ? `name:${normalizedName(attempt.loginOrEmail)}` : `user:${storeUserId}`;
    limits = [[throttleRules.loginFailures, `${client}|${account}`], perAddress];
    await throttle.check(limits, attempt.now);
  });
  if (!user) await throttle.recordFailure(limits, attempt.now);
  return user;
}

/**
 * A name as case- and accent-insensitive collations compare it: compatibility forms unified,
 * accents dropped, case folded, outer spaces gone (`jáne.doe`, `JANE.DOE`, `ｊａｎｅ.ｄｏｅ` → `jane.doe`).
 */
export function normalizedName(typed: string): string {
  return typed.normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC").toUpperCase().toLowerCase().trim();
}
