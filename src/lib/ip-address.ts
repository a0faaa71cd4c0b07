// Addresses as the client-address rules (README, Configuration) need them: parsed and canonical,
// IPv4-mapped IPv6 read as IPv4, ranges for TRUSTED_PROXIES, and the /64 an IPv6 client is counted
// by. node:net parses and matches; hono's ipaddr helpers do the 128-bit arithmetic.
import { BlockList, isIP } from "node:net";
import {
  convertIPv4BinaryToString,
  convertIPv4MappedIPv6ToIPv4,
  convertIPv6BinaryToString,
  convertIPv6ToBinary,
  isIPv4MappedIPv6,
} from "hono/utils/ipaddr";

/**
 * The address in canonical text (IPv4 dotted, IPv6 compressed lower case, IPv4-mapped IPv6 as
 * IPv4), or null when `text` is not an address. Takes what proxies write too: `[v6]`, `[v6]:port`,
 * `v4:port` and surrounding quotes.
 */
export function canonicalAddress(text: string): string | null {
  let value = text.trim().replace(/^"(.*)"$/, "$1");
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.indexOf(":"));
  const family = isIP(value);
  if (family === 4) return value;
  if (family !== 6) return null;
  const binary = convertIPv6ToBinary(value);
  if (isIPv4MappedIPv6(binary)) return convertIPv4BinaryToString(convertIPv4MappedIPv6ToIPv4(binary));
  return convertIPv6BinaryToString(binary);
}

/**
 * What a throttle counts a client by: an IPv4 address as is, an IPv6 address by its /64 (one
 * subscriber usually holds a whole /64, so a /128 per bucket would give each client 2^64 buckets).
 */
export function throttleBucketOf(address: string): string {
  const canonical = canonicalAddress(address);
  if (canonical === null || isIP(canonical) !== 6) return canonical ?? address;
  const prefix = (convertIPv6ToBinary(canonical) >> 64n) << 64n;
  return `${convertIPv6BinaryToString(prefix)}/64`;
}

export interface AddressRange {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

/** "10.0.0.1", "10.0.0.0/8", "::1", "2001:db8::/32" → a range; or the reason it is none. */
export function parseAddressRange(entry: string): AddressRange | string {
  const [addressText = "", prefixText, ...rest] = entry.trim().split("/");
  const address = canonicalAddress(addressText);
  if (address === null || rest.length > 0 || addressText.includes("[") || addressText.includes('"'))
    return `"${entry}" is not an IP address or CIDR range such as 10.0.0.1, 10.0.0.0/8 or 2001:db8::/32`;
  const family = isIP(address) === 4 ? "ipv4" : "ipv6";
  const max = family === "ipv4" ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  // An IPv4-mapped range ("::ffff:10.0.0.0/104") is read as the IPv4 range it maps.
  const mappedOffset = isIP(addressText) === 6 && family === "ipv4" ? 96 : 0;
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) - mappedOffset : Number.NaN;
  if (!(prefix >= 0 && prefix <= max))
    return `"${entry}" has a prefix length outside 0–${max + mappedOffset}`;
  return { address, prefix, family };
}

/** Membership in a set of ranges. */
export class AddressSet {
  private readonly list = new BlockList();

  constructor(ranges: readonly AddressRange[]) {
    for (const range of ranges) this.list.addSubnet(range.address, range.prefix, range.family);
  }

  /** `address` must be canonical (canonicalAddress). */
  has(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? "ipv4" : "ipv6");
  }
}
