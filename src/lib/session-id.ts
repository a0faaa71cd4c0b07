// Session ids are stored only as their SHA-256 (README "Admins", sessions): a token names its
// session by the raw id (its `sid`), the database holds the digest, so a copy of the database
// (a backup, a leaked dump) names no session a token could be made for. The id is a random
// UUID, 122 bits: a plain, unsalted digest is as good as a slow one against guessing.

/** The stored form of a session id: lower-case hex SHA-256 of its text. */
export function sessionIdHash(id: string): string {
  return new Bun.CryptoHasher("sha256").update(id).digest("hex");
}

/** Whether a stored id is already a digest (64 hex digits); a raw id is a 36-character UUID. */
export function isSessionIdHash(stored: string): boolean {
  return /^[0-9a-f]{64}$/.test(stored);
}
