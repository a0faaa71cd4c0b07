// Checking a password under the login limits (README, Configuration): failures count per (client
// address, account) and per client address, the account being the store user the typed name
// resolves to.

import { throttleBucketOf } from "../lib/ip-address";
import type { StoreDirectory, StoreUser } from "../store/directory";
import { type Throttle, type ThrottleSlot, throttleRules } from "./throttle";

export interface LoginAttempt {
  loginOrEmail: string;
  password: string;
  clientAddress: string;
  now: Date;
}

/**
 * The store user for these credentials, or null (a failure, recorded). 429 before any password is
 * hashed when the account or the address has used up its failures; a wait first while attempts
 * already running for them could (throttle.ts). Every spelling that resolves to one user (login or
 * e-mail, any case or accents the store's collation ignores) counts as that user; a name that
 * resolves to nobody counts under its normalised form.
 */
export async function checkCredentials(
  store: StoreDirectory,
  throttle: Throttle,
  attempt: LoginAttempt,
): Promise<StoreUser | null> {
  const client = throttleBucketOf(attempt.clientAddress);
  // The account is known only once the store has resolved the name, so the slot is taken in the
  // store's callback, between that look-up and the password hash, and ended here however the
  // store returns: a slot left held would make every later attempt on the account wait.
  let slot: ThrottleSlot | undefined;
  let user: StoreUser | null;
  try {
    user = await store.authenticate(attempt.loginOrEmail, attempt.password, async (storeUserId) => {
      const account =
        storeUserId === null ? `name:${normalizedName(attempt.loginOrEmail)}` : `user:${storeUserId}`;
      slot = await throttle.enter(
        [
          [throttleRules.loginFailures, `${client}|${account}`],
          [throttleRules.loginFailuresPerAddress, client],
        ],
        attempt.now,
      );
    });
  } catch (error) {
    // The store failed (an outage), not the guess: nothing counts.
    slot?.abandoned();
    throw error;
  }
  if (user) slot?.succeeded();
  else await slot?.failed();
  return user;
}

/**
 * A name as case- and accent-insensitive collations compare it: compatibility forms unified,
 * accents dropped, case folded, outer spaces gone (`jáne.doe`, `JANE.DOE`, `ｊａｎｅ.ｄｏｅ` → `jane.doe`).
 */
export function normalizedName(typed: string): string {
  return typed.normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC").toUpperCase().toLowerCase().trim();
}
