// HTTP Basic verifies a password hash; scripts that upload in a loop would pay it per request.
// Successful checks are remembered for at most 60 s under a hash of the header's token,
// which http/authenticate.ts accepts only in its one canonical spelling.
import { createHash } from "node:crypto";
import type { Principal } from "./principal";

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export class BasicAuthCache {
  private readonly entries = new Map<string, { principal: Principal; expiresAt: number }>();

  get(token: string, now: number): Principal | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.principal;
  }

  set(token: string, principal: Principal, now: number): void {
    // Maps iterate in insertion order: dropping the first entry drops the oldest.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(keyOf(token), { principal, expiresAt: now + TTL_MS });
  }
}

function keyOf(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}
