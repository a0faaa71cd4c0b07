// A session remembers which password hash it was opened under, so that a password changed in the
// shop ends it (README, Words used here: re-check). Only digests leave the store, never the hash.
import { createHash, createHmac } from "node:crypto";

/** What a store reports for a user's password hash: a digest, enough to notice a change. */
export function passwordStampOf(passwordHash: string): string {
  return createHash("sha256").update(passwordHash).digest("base64url");
}

/**
 * What the session row keeps: the stamp keyed with the server's secret and shortened. Unkeyed, a
 * row would let whoever reads bookdist's database test guesses against an unsalted legacy (MD5)
 * shop hash; keyed, it tells nothing without the secret.
 */
export function sessionStampOf(secret: string, passwordStamp: string): string {
  return createHmac("sha256", secret).update(passwordStamp).digest("base64url").slice(0, 22);
}
