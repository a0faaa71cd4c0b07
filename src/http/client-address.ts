// The client address (README, Configuration): the TCP peer, unless that peer is a trusted proxy
// (TRUSTED_PROXIES); then the right-most X-Forwarded-For (or Forwarded: for=) hop that is not
// itself a trusted proxy. Hops left of it were written by the client and prove nothing.
import type { Context } from "hono";
import { getConnInfo } from "hono/bun";
import { type AddressRange, AddressSet, canonicalAddress } from "../lib/ip-address";
import type { AppBindings } from "./types";

// One matcher per parsed config (the list is built once, at start-up).
const matchers = new WeakMap<readonly AddressRange[], AddressSet>();

function trustedSetOf(ranges: readonly AddressRange[]): AddressSet {
  let set = matchers.get(ranges);
  if (!set) {
    set = new AddressSet(ranges);
    matchers.set(ranges, set);
  }
  return set;
}

/** The caller's address in canonical form; "unknown" when there is no peer (in-process requests). */
export function clientAddressOf(c: Context<AppBindings>): string {
  const peer = peerAddressOf(c);
  const ranges = c.get("deps").config.trustedProxies;
  if (peer === null) return "unknown";
  if (ranges.length === 0) return peer;
  return resolveClientAddress(peer, forwardedHops(c), trustedSetOf(ranges));
}

/**
 * Whether the TCP peer is one of TRUSTED_PROXIES: only such a peer's headers about the request
 * (X-Forwarded-For, X-Request-Id) are believed. An in-process request has no peer and is not.
 */
export function isFromTrustedProxy(c: Context<AppBindings>): boolean {
  const ranges = c.get("deps").config.trustedProxies;
  if (ranges.length === 0) return false;
  const peer = peerAddressOf(c);
  return peer !== null && trustedSetOf(ranges).has(peer);
}

function peerAddressOf(c: Context): string | null {
  try {
    const remote = getConnInfo(c).remote.address;
    return remote ? canonicalAddress(remote) : null;
  } catch {
    return null;
  }
}

/** The hops the proxies reported, client first: X-Forwarded-For, or else Forwarded's for=. */
function forwardedHops(c: Context): string[] {
  const xff = c.req.raw.headers.get("x-forwarded-for");
  if (xff !== null) return xff.split(",");
  const forwarded = c.req.raw.headers.get("forwarded");
  if (forwarded === null) return [];
  return forwarded.split(",").flatMap((element) =>
    element
      .split(";")
      .map((pair) => pair.trim())
      .filter((pair) => pair.slice(0, 4).toLowerCase() === "for=")
      .map((pair) => pair.slice(4)),
  );
}

/**
 * Walks the hops from the right, from the peer towards the client, while the hop it came from is
 * a trusted proxy. A hop that is not an address ("unknown", obfuscated, garbage) ends the walk at
 * the last address known good, so no client can mint buckets of its own choosing.
 */
export function resolveClientAddress(peer: string, hops: readonly string[], trusted: AddressSet): string {
  let client = peer;
  for (let i = hops.length - 1; i >= 0 && trusted.has(client); i--) {
    const hop = canonicalAddress(hops[i]!);
    if (hop === null) break;
    client = hop;
  }
  return client;
}
