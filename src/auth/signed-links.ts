// Signed links (README, Reading apps): the OPDS feeds' cover and download links work without an
// Authorization header, because many reading apps send credentials only to the feed and fetch the
// files by their links alone. A link is an HMAC over (path, user, the file's sha256, expiry) under
// a key derived from JWT_SECRET, so it is good for one user, one exact file and a day, on every
// instance that shares the secret.
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/** How long a signed link stays good: a reader that keeps a feed a day still downloads from it. */
export const SIGNED_LINK_TTL_SECONDS = 24 * 60 * 60;

/** What a signature covers: the path it opens, for whom, which bytes, until when (unix seconds). */
export interface SignedLinkFacts {
  path: string;
  userUuid: string;
  sha256: string;
  expiresAt: number;
}

// A key of its own, not JWT_SECRET itself: a signed link can never pass for a JWT signature or
// anything else the secret signs. Changing the info string retires every link issued.
const KEY_INFO = "bookdist signed links v1";
const SIGNATURE_BYTES = 32;

export class LinkSigner {
  readonly #key: Buffer;

  constructor(jwtSecret: string) {
    this.#key = Buffer.from(hkdfSync("sha256", jwtSecret, "", KEY_INFO, 32));
  }

  /** The base64url HMAC-SHA256 of the facts. */
  sign(facts: SignedLinkFacts): string {
    return this.#mac(facts).toString("base64url");
  }

  /**
   * Whether `signature` is the one for these facts and they have not expired at `nowSeconds`.
   * Compared in constant time; a signature of another length or alphabet is simply wrong.
   */
  verify(facts: SignedLinkFacts, signature: string, nowSeconds: number): boolean {
    if (facts.expiresAt < nowSeconds) return false;
    const given = Buffer.from(signature, "base64url");
    // Buffer's decoder skips what is not base64url; only the canonical spelling is the signature.
    if (given.length !== SIGNATURE_BYTES || given.toString("base64url") !== signature) return false;
    return timingSafeEqual(given, this.#mac(facts));
  }

  #mac({ path, userUuid, sha256, expiresAt }: SignedLinkFacts): Buffer {
    // JSON keeps the fields apart: no path or uuid can run into the next field.
    return createHmac("sha256", this.#key)
      .update(JSON.stringify([path, userUuid, sha256, expiresAt]))
      .digest();
  }
}
